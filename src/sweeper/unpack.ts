// Unpacking: what a timer's stored bytes become in the log. The log has no zstd flag, so zstd
// payloads are decompressed here; ciphertext stays ciphertext (the pop route decrypts).
//   plain + zstd      → decompress
//   encrypted + zstd  → decrypt, decompress, re-encrypt (fresh IV)
//                       decrypt fails (key rotated): the sealed bytes as they are, encrypted=true;
//                       the pop route flags frames it cannot decrypt
//                       no key configured at all: a configuration failure (spends an attempt)
// Uncompressed timers are not touched here; their bytes go from timers to messages inside SQL.
import { zstdDecompress, type PayloadCipher } from '../payload.ts';
import type { ClaimedTimer } from './claimDue.ts';
import { UnpackError } from './failures.ts';
import type { Replacement } from './fireClaimed.ts';

export async function unpack(row: ClaimedTimer, cipher: PayloadCipher | undefined): Promise<Replacement | undefined> {
  if (!row.payloadZstd) return undefined;
  const stored = row.payload!;
  if (!row.encrypted) return { tid: row.tid, payload: await unzstd(stored), encrypted: false };
  if (!cipher) throw new UnpackError('configuration', 'encrypted zstd payload but QUEEN_ENCRYPTION_KEY is not set');
  let compressed: Buffer;
  try {
    compressed = cipher.decrypt(stored);
  } catch {
    return { tid: row.tid, payload: stored, encrypted: true };
  }
  return { tid: row.tid, payload: cipher.encrypt(await unzstd(compressed)), encrypted: true };
}

async function unzstd(bytes: Buffer): Promise<Buffer> {
  try {
    return await zstdDecompress(bytes);
  } catch (err) {
    throw new UnpackError('permanent', `zstd payload cannot be decompressed: ${(err as Error).message}`);
  }
}
