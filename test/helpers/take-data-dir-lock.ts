/**
 * A process that tries the data directory's lock at an agreed instant (argv: dir, epoch ms) and says
 * whether it got it ("GOT" or "REFUSED"), then holds it a moment: data-dir-lock.test.ts starts several.
 */
import { lockDataDir } from "../../src/db/data-dir-lock.ts";

const [dir, at] = process.argv.slice(2);
while (Date.now() < Number(at)) {
  // Spin to the agreed instant: the processes must try together.
}
try {
  lockDataDir(dir!);
  process.stdout.write("GOT\n");
  await new Promise((resolve) => setTimeout(resolve, 1500));
} catch {
  process.stdout.write("REFUSED\n");
}
