-- Reactivation mailings filter past jobs by job type (issue 28). The app's CSV upload can carry a
-- job type per row; the developer API's import row has no such field, so its rows leave it NULL.
ALTER TABLE import_rows ADD COLUMN job_type text;

-- Where a batch came from, shown in Past jobs: the developer API's import or the app's CSV upload.
-- Every batch before this migration came through the API's import service as an API import.
ALTER TABLE imports ADD COLUMN origin text NOT NULL DEFAULT 'api';
ALTER TABLE imports ADD CONSTRAINT imports_origin_check CHECK (origin IN ('api', 'app_upload'));
