// The grants a token carries. A module of its own, importing nothing, so that the CLI's usage text
// names them without loading jose and zod (src/auth.ts verifies tokens against this list).
export const GRANTS = ['produce', 'consume', 'read', 'admin'] as const;
export type Grant = (typeof GRANTS)[number];
