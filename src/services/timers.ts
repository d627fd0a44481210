// Timer operations (issue 3 implements these). Signatures are the router's contract.
import type { AuthedContext } from '../trpc.ts';
import type { TimerOperation, TimerResult } from '../routers/timers.ts';

const todo = (): never => {
  throw new Error('timer operations are not implemented yet');
};

export async function applyBatch(_ctx: AuthedContext, _ops: TimerOperation[]): Promise<{ results: TimerResult[] }> {
  return todo();
}
export async function cancelOne(_ctx: AuthedContext, _queue: string, _timerKey: string, _txn?: string): Promise<any> {
  return todo();
}
export async function peek(_ctx: AuthedContext, _queue: string, _timerKey: string): Promise<any> {
  return todo();
}
export async function list(_ctx: AuthedContext, _queue: string, _after: string | undefined, _limit: number): Promise<any> {
  return todo();
}
export async function usage(_ctx: AuthedContext, _period?: string): Promise<any> {
  return todo();
}
