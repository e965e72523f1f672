import type { Clock } from "../clock.ts";
import { rateLimited } from "../errors.ts";

/**
 * A budget of synchronous CPU time per account (an organization), for work whose cost depends on
 * what the caller sends: a request-count limit cannot bound it, since one hostile address costs as
 * much to read as a hundred ordinary ones. Each account's balance refills by `msPerMinute`
 * milliseconds a minute, continuously, up to two minutes' worth (request limits count in fixed
 * minutes, so a caller within them may send two minutes' requests back to back at a minute's turn);
 * work is charged the time it took, and once the balance is at or below zero the account's next
 * work is refused (429 `rate_limited`, Retry-After: the seconds until the balance holds a minute's
 * budget again). It is per process, as the CPU it protects is.
 */
export interface WorkBudget {
  /** Refuses (429) when `account` has spent its budget; else nothing. */
  assertLeft(account: string): void;
  /** Runs `work` when `account` has budget left (else refuses, as `assertLeft`) and charges its time. */
  spend<T>(account: string, work: () => T): T;
}

interface Balance {
  ms: number;
  /** The clock time (ms) the balance was last brought up to date. */
  at: number;
}

/** Accounts kept before full (idle) ones are forgotten: a full balance is the same as none. */
const ACCOUNTS_KEPT = 10_000;

export function createWorkBudget(options: {
  msPerMinute: number;
  clock: Clock;
  /** What is being budgeted, as the refusal's sentence starts ("Reading addresses"). */
  work: string;
  /** The time work takes; `performance.now` outside tests. */
  elapsedMs?: () => number;
}): WorkBudget {
  const { msPerMinute, clock, work } = options;
  const elapsedMs = options.elapsedMs ?? (() => performance.now());
  const refillPerMs = msPerMinute / 60_000;
  const capacity = 2 * msPerMinute;
  const balances = new Map<string, Balance>();

  function balanceOf(account: string): Balance {
    const now = clock.now().getTime();
    const balance = balances.get(account) ?? { ms: capacity, at: now };
    balance.ms = Math.min(capacity, balance.ms + Math.max(0, now - balance.at) * refillPerMs);
    balance.at = now;
    return balance;
  }

  function forgetFullBalances(): void {
    for (const account of balances.keys()) {
      if (balanceOf(account).ms >= capacity) balances.delete(account);
    }
  }

  function assertLeft(account: string): void {
    const balance = balanceOf(account);
    if (balance.ms > 0) return;
    // Until the balance holds a minute's budget: a caller that waits as told can send a minute's work.
    const seconds = Math.max(1, Math.ceil((msPerMinute - balance.ms) / refillPerMs / 1000));
    throw rateLimited(
      seconds,
      `${work} for this organization took more time than its budget allows; retry after ${seconds} s`,
    );
  }

  return {
    assertLeft,
    spend(account, task) {
      assertLeft(account);
      const started = elapsedMs();
      try {
        return task();
      } finally {
        const balance = balanceOf(account);
        balance.ms -= elapsedMs() - started;
        balances.set(account, balance);
        if (balances.size > ACCOUNTS_KEPT) forgetFullBalances();
      }
    },
  };
}
