-- A card's previews (its page's front and back, image 'front' and 'back') are gzipped SVG from now on
-- (issue 41): the print's own drawing with the picture at 150 dpi, written with a printed card's print
-- files. The 150 dpi PNGs kept before are dropped: a waiting card's were only a cache, and a printed
-- card's is drawn again, as SVG, the next time someone looks, as for any card printed before its
-- images were kept. The column holds PNG and SVG bytes alike, so it is named for neither.
DELETE FROM piece_images WHERE image IN ('front', 'back');
ALTER TABLE piece_images RENAME COLUMN png TO bytes;
-- PNG and gzip are compressed already: stored out of line as they are, with no attempt to compress
-- them again on every write.
ALTER TABLE piece_images ALTER COLUMN bytes SET STORAGE EXTERNAL;
