/**
 * Within the word shapes the address parser still reads, the costliest text a fuzzer found: unit
 * and street-type words glued with dashes (~5-30 ms a parse, where an ordinary address takes
 * ~0.1 ms; docs/addresses.md). A distinct house number makes each a new home.
 */
const GLUED_UNIT_WORDS =
  "Unit-StILe4nS-ApAStAvenuethNenrin-WoCAAeF-lWlRPH-th-AtheBheeareBoxPHLoweCAr-HwyR Spc-MaP O BoC#NYooPHfwerpARdMa/nt-- Main B,eAv/-nuSu1te-";

export const gluedUnitWordsAddress = (houseNumber: number) =>
  `${houseNumber}0-121/23 R# /Rd/${GLUED_UNIT_WORDS}`;
