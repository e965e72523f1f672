/** A promise the test settles by hand: `signal.done` waits until `signal.fire()` is called. */
export interface Signal {
  done: Promise<void>;
  fire(): void;
}

export function signal(): Signal {
  let fire!: () => void;
  const done = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { done, fire };
}
