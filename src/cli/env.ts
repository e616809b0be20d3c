// Everything the commands take from the outside world, as one injectable object: file system,
// terminal, clocks, signals, process exit and the simulation engine. `realEnv` wires the real ones;
// tests hand the commands fakes instead, so no command reaches for a global.
import * as fsp from "node:fs/promises";
import { rmSync } from "node:fs";
import { dirname, resolve as resolvePath } from "node:path";
import type { RunEngine } from "./engine.ts";
import { workerEngine } from "./workerEngine.ts";
import { workerPool, type EnginePool } from "./workerPool.ts";

export interface TextOut {
  write(text: string): void;
}

export interface TermOut extends TextOut {
  /** True when the stream is an interactive terminal (progress bars are drawn only then). */
  isTTY: boolean;
  /** Terminal width in characters, when known. */
  columns?: number;
}

/** The file operations the CLI needs; paths are absolute. */
export interface CliFs {
  readText(file: string): Promise<string>;
  /** Entry names of a directory, unsorted. */
  readDir(dir: string): Promise<string[]>;
  kind(path: string): Promise<"file" | "dir" | "missing" | "other">;
  /** Creates a directory and its missing parents. */
  mkdir(dir: string): Promise<void>;
  writeFile(file: string, data: Uint8Array | string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** Removes a file or a directory tree; no error if it does not exist. */
  remove(path: string): Promise<void>;
  /** As remove, synchronously: for the second Ctrl-C, which exits before any promise settles. */
  removeSync(path: string): void;
}

export interface CliEnv {
  cwd: string;
  pid: number;
  stdout: TextOut;
  stderr: TermOut;
  fs: CliFs;
  engine: RunEngine;
  /** A pool of n long-lived engines for many runs (check, sweep); absent: use `engine`. */
  pool?: (n: number) => EnginePool;
  /** Whether a process id is alive (stale report siblings of dead runs are removed); absent: never removed. */
  pidAlive?: (pid: number) => boolean;
  /** Wall-clock time, for run.json's startedAt. */
  now: () => Date;
  /** Registers a Ctrl-C handler; returns a function that removes it. */
  onInterrupt: (handler: () => void) => () => void;
  /** Ends the process at once with `code` (the second Ctrl-C). */
  exitNow: (code: number) => void;
}

export const nodeFs: CliFs = {
  readText: (file) => readTextCapped(file, INPUT_BYTES_MAX),
  readDir: (dir) => fsp.readdir(dir),
  kind: async (path) => {
    try {
      const st = await fsp.stat(path);
      return st.isDirectory() ? "dir" : st.isFile() ? "file" : "other";
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return "missing";
      throw error;
    }
  },
  mkdir: (dir) => mkdirLevels(dir),
  writeFile: (file, data) => fsp.writeFile(file, data),
  rename: (from, to) => fsp.rename(from, to),
  remove: (path) => fsp.rm(path, { recursive: true, force: true }),
  removeSync: (path) => rmSync(path, { recursive: true, force: true }),
};

export function realEnv(): CliEnv {
  return {
    cwd: process.cwd(),
    pid: process.pid,
    stdout: { write: (text) => void process.stdout.write(text) },
    stderr: {
      write: (text) => void process.stderr.write(text),
      isTTY: process.stderr.isTTY === true,
      ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
    },
    fs: nodeFs,
    engine: workerEngine(),
    pool: (n) => workerPool(n),
    now: () => new Date(),
    onInterrupt: (handler) => {
      process.on("SIGINT", handler);
      return () => void process.off("SIGINT", handler);
    },
    exitNow: (code) => process.exit(code),
    pidAlive: (pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch (error) {
        return (error as { code?: unknown }).code === "EPERM"; // alive, someone else's
      }
    },
  };
}

/** The largest input file read (a scenario, a baseline, a sweep result): 64 MiB. */
export const INPUT_BYTES_MAX = 64 * 1024 * 1024;

/**
 * Reads a file as UTF-8, in chunks, refusing it (an error with code EFBIG) once it passes `maxBytes` — so
 * `/dev/zero` or a huge file fails fast instead of exhausting memory ("Invalid string length").
 */
export async function readTextCapped(file: string, maxBytes: number): Promise<string> {
  const handle = await fsp.open(file, "r");
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.alloc(1 << 20);
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw Object.assign(new Error(`larger than ${maxBytes} bytes`), { code: "EFBIG" });
      chunks.push(Buffer.from(buf.subarray(0, bytesRead)));
    }
    return Buffer.concat(chunks).toString("utf8");
  } finally {
    await handle.close();
  }
}

/**
 * mkdir -p one level at a time: Node's recursive mkdir spins forever on some pseudo file systems
 * (`--out /proc/x`, issue 15 item 5); here each missing level is created on its own and the first that
 * fails — or an existing part of the path that is not a directory — ends it with that error.
 */
export async function mkdirLevels(dir: string): Promise<void> {
  const missing: string[] = [];
  let p = resolvePath(dir);
  for (;;) {
    let st;
    try {
      st = await fsp.stat(p);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") throw error;
      missing.push(p);
      const up = dirname(p);
      if (up === p) break;
      p = up;
      continue;
    }
    if (!st.isDirectory()) throw Object.assign(new Error(`${p} is not a directory`), { code: "ENOTDIR" });
    break;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      await fsp.mkdir(missing[i]!);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EEXIST") throw error;
    }
  }
}
