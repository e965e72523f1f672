import { type ChildProcess, fork } from "node:child_process";
import { setPriority } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AppError, invalidPayload } from "../errors.ts";
import type { RasterAnswer, RasterRequest } from "./logo-rasterizer-process.ts";

/**
 * Turns an uploaded logo (PNG, JPEG or SVG) into the PNG the service stores, at a bounded cost:
 * an SVG is rebuilt from an allow-list and sized (svg-logo.ts); that, the decoding and the drawing
 * run in one child process at low priority, one image at a time, each with a time limit after
 * which the process is killed (and started again for the next image). A request waits in a short
 * queue; a full queue is a 503. The API's event loop and its thread pool never draw an upload.
 */
export interface LogoRasterizer {
  toPng(image: Buffer, kind: "svg" | "bitmap"): Promise<Buffer>;
  close(): Promise<void>;
}

export interface LogoRasterizerOptions {
  /** Longer side of the stored PNG, at most. */
  maxSide: number;
  /** How long one image may take to draw before its process is killed. */
  timeLimitMs: number;
  /** Uploads that may wait for the one in progress; more answer 503. */
  maxWaiting: number;
}

/** Most pixels a PNG or JPEG may declare (5000 × 5000): decoded pixels cost memory and time. */
export const LOGO_MAX_INPUT_PIXELS = 25_000_000;
/** Niceness of the rasterising process: it yields the CPU to the one that serves requests. */
const RASTERIZER_NICE = 10;
/** A process left idle this long ends (a quiet service does not hold its memory). */
const IDLE_MS = 60_000;
/** Its start (Node, sharp, a first drawing of text) may take this long; it is not counted in an image's time limit. */
const START_LIMIT_MS = 60_000;

interface Task {
  request: Omit<RasterRequest, "id">;
  resolve(png: Buffer): void;
  reject(error: Error): void;
}

/** The child's file with this file's extension: `.ts` under tsx, `.js` in the build. */
function childFile(): { file: string; execArgv: string[] } {
  const self = fileURLToPath(import.meta.url);
  const extension = path.extname(self);
  const file = path.join(path.dirname(self), `logo-rasterizer-process${extension}`);
  return { file, execArgv: extension === ".ts" ? ["--import", "tsx"] : [] };
}

export const logoTooCostly = (seconds: number) =>
  invalidPayload(`logo: drawing it took longer than ${seconds} s; send a simpler SVG or a PNG`);
const rasterizerBusy = () =>
  new AppError(503, "service_unavailable", "Too many logos are being processed; try again in a minute.", {
    "retry-after": "30",
  });
const unreadableLogo = () => invalidPayload("logo: not a readable PNG, JPEG or SVG image");

export function createLogoRasterizer(options: LogoRasterizerOptions): LogoRasterizer {
  const waiting: Task[] = [];
  let child: ChildProcess | undefined;
  let ready: Promise<ChildProcess> | undefined;
  let running = false;
  let closed = false;
  let nextId = 1;
  let idleTimer: NodeJS.Timeout | undefined;

  function stopChild(): void {
    const current = child;
    child = undefined;
    ready = undefined;
    if (current && current.exitCode === null && current.signalCode === null) current.kill("SIGKILL");
  }

  function startChild(): Promise<ChildProcess> {
    const { file, execArgv } = childFile();
    const started = fork(file, [], {
      execArgv,
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child = started;
    if (started.pid !== undefined) {
      try {
        setPriority(started.pid, RASTERIZER_NICE);
      } catch {
        // not permitted: the process draws at normal priority, still one image at a time
      }
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stopChild();
        reject(rasterizerBusy());
      }, START_LIMIT_MS);
      started.once("message", () => {
        clearTimeout(timer);
        resolve(started);
      });
      started.once("exit", () => {
        clearTimeout(timer);
        if (child === started) stopChild();
        reject(rasterizerBusy());
      });
    });
  }

  function draw(worker: ChildProcess, request: RasterRequest): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("exit", onExit);
        settle();
      };
      const onMessage = (answer: RasterAnswer) => {
        if (answer.id !== request.id) return;
        finish(() =>
          "png" in answer
            ? resolve(Buffer.from(answer.png.buffer, answer.png.byteOffset, answer.png.byteLength))
            : reject("refused" in answer ? invalidPayload(answer.refused) : unreadableLogo()),
        );
      };
      const onExit = () => finish(() => reject(unreadableLogo()));
      const timer = setTimeout(() => {
        finish(() => reject(logoTooCostly(options.timeLimitMs / 1000)));
        // Killing the process is what stops the work: libvips has no other way out of a drawing.
        stopChild();
      }, options.timeLimitMs);
      worker.on("message", onMessage);
      worker.once("exit", onExit);
      worker.send(request);
    });
  }

  async function runNext(): Promise<void> {
    if (running) return;
    const task = waiting.shift();
    if (!task) {
      idleTimer = setTimeout(stopChild, IDLE_MS);
      idleTimer.unref();
      return;
    }
    running = true;
    clearTimeout(idleTimer);
    try {
      ready ??= startChild();
      const worker = await ready;
      task.resolve(await draw(worker, { id: nextId++, ...task.request }));
    } catch (error) {
      task.reject(error as Error);
    } finally {
      running = false;
      void runNext();
    }
  }

  return {
    async toPng(image, kind) {
      if (closed) throw rasterizerBusy();
      if (waiting.length >= options.maxWaiting) throw rasterizerBusy();
      return new Promise<Buffer>((resolve, reject) => {
        waiting.push({
          request: { image, kind, maxSide: options.maxSide, maxInputPixels: LOGO_MAX_INPUT_PIXELS },
          resolve,
          reject,
        });
        void runNext();
      });
    },
    async close() {
      closed = true;
      clearTimeout(idleTimer);
      for (const task of waiting.splice(0)) task.reject(rasterizerBusy());
      stopChild();
    },
  };
}
