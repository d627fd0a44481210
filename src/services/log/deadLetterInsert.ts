// The one statement fragment that writes dead letters. Three paths produce them — an ack that
// spends a frame's last retry (ack.ts), a timer whose txn another message already holds
// (sweeper/fireClaimed.ts), a timer out of attempts (sweeper/deadLetter.ts) — and each feeds this
// INSERT with a SELECT yielding DEAD_LETTER_COLUMNS in order, so a column added to dead_letters
// is added here once and every producer is made to say what it puts in it.

/** The columns every producer of dead letters supplies, in the order its SELECT yields them. */
export const DEAD_LETTER_COLUMNS = [
  'tenant',
  'queue',
  'partition',
  'consumer_group',
  'message_id',
  'transaction_id',
  'payload',
  'encrypted',
  'payload_zstd',
  'producer_sub',
  'error_message',
  'retry_count',
  'from_timer',
  'timer_key',
] as const;

/**
 * INSERT_DEAD_LETTERS — the INSERT of DEAD_LETTER_COLUMNS into dead_letters, followed by the caller's
 * SELECT, in a CTE or a statement of its own whose header gives its parameters, locks and rows.
 */
export const INSERT_DEAD_LETTERS = `INSERT INTO dead_letters (${DEAD_LETTER_COLUMNS.join(', ')})`;
