/** Resolution of the PNG proof a human looks at (render.ts draws each side at it). */
export const PROOF_DPI = 150;
