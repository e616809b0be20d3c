// A typed trace of what the model did, kept apart from logging.
//
// Every record is (type, tUs, f0..f3), all numbers, folded into a running 64-bit hash. Two runs
// agree exactly iff their hashes agree, which is how determinism is checked without storing
// millions of records. Records can also be captured in memory through a filter, for tests and for
// debugging one message's path; capture never touches the hash, so turning it on cannot change a
// result. emit runs a few times per simulated message, so with capture off it is integer mixing
// only: no allocation, no strings.

import { fmix32, hex8 } from "./streams.ts";

/** A captured record: time, type name and the type's named fields. */
export interface TraceRecord {
  readonly tUs: number;
  readonly type: string;
  readonly [field: string]: number | string;
}

/** Decides which records to capture; `type` is the code returned by defineType. */
export type TraceFilter = (type: number, f0: number, f1: number, f2: number, f3: number) => boolean;

/** Fields per record; fixed so emit can take plain arguments instead of an array. */
export const TRACE_FIELDS_MAX = 4;
/** Default cap on captured records, so a loose filter cannot exhaust memory. */
export const TRACE_CAPTURED_MAX = 1_000_000;

const TWO_POW_32 = 4294967296;

export class Trace {
  /** Records emitted so far. */
  count = 0;
  /** Records kept by the capture filter, oldest first. */
  readonly captured: TraceRecord[] = [];
  /** True once the capture cap was reached and later matching records were dropped. */
  capturedTruncated = false;

  private readonly typeNames: string[] = [];
  private readonly typeFields: (readonly string[])[] = [];
  private h1 = 0x243f6a88;
  private h2 = 0x85a308d3;
  private filter: TraceFilter | null = null;
  private capturedMax = TRACE_CAPTURED_MAX;

  /**
   * Declares a record type and returns its code. Declaring the same name again with the same fields
   * returns the same code, so every instance of a component may declare its types; different fields
   * under one name are a programming error.
   */
  defineType(name: string, fields: readonly string[]): number {
    if (fields.length > TRACE_FIELDS_MAX) throw new RangeError(`trace type ${name}: at most ${TRACE_FIELDS_MAX} fields, got ${fields.length}`);
    if (fields.includes("tUs") || fields.includes("type")) throw new RangeError(`trace type ${name}: "tUs" and "type" are reserved field names`);
    const existing = this.typeNames.indexOf(name);
    if (existing >= 0) {
      if (this.typeFields[existing]!.join(",") !== fields.join(",")) {
        throw new RangeError(`trace type ${name} is already defined with fields [${this.typeFields[existing]!.join(", ")}]`);
      }
      return existing;
    }
    this.typeNames.push(name);
    this.typeFields.push([...fields]);
    return this.typeNames.length - 1;
  }

  typeName(type: number): string {
    return this.typeNames[type] ?? `type#${type}`;
  }

  /**
   * Appends a record. Fields are safe integers (negative allowed); anything after the type's
   * declared fields should be left 0. The hash is order-sensitive: the same records in another
   * order hash differently.
   */
  emit(type: number, tUs: number, f0 = 0, f1 = 0, f2 = 0, f3 = 0): void {
    if (!(type >= 0 && type < this.typeNames.length)) throw new RangeError(`trace: unknown record type ${type}`);
    // Low words go through lane 1 and high words through lane 2 (x >>> 0 is x mod 2^32 exactly for
    // any safe integer, and (x − lo) / 2^32 its high word). Each step is a bijection of the lane for a
    // fixed word and of the word for a fixed lane, so two records differing in a single field always
    // leave different lanes; the cross-add below spreads that to both halves, and hash() finalises.
    let h1 = mix1(this.h1, type);
    let h2 = this.h2;
    let w = tUs >>> 0;
    h1 = mix1(h1, w);
    h2 = mix2(h2, (tUs - w) / TWO_POW_32);
    w = f0 >>> 0;
    h1 = mix1(h1, w);
    h2 = mix2(h2, (f0 - w) / TWO_POW_32);
    w = f1 >>> 0;
    h1 = mix1(h1, w);
    h2 = mix2(h2, (f1 - w) / TWO_POW_32);
    w = f2 >>> 0;
    h1 = mix1(h1, w);
    h2 = mix2(h2, (f2 - w) / TWO_POW_32);
    w = f3 >>> 0;
    h1 = mix1(h1, w);
    h2 = mix2(h2, (f3 - w) / TWO_POW_32);
    this.h1 = (h1 + h2) | 0;
    this.h2 = (h2 + this.h1) | 0;
    this.count++;
    if (this.filter !== null && this.filter(type, f0, f1, f2, f3)) this.capture(type, tUs, f0, f1, f2, f3);
  }

  /** 16 lowercase hex digits summarising every record so far (and their number). */
  hash(): string {
    let h1 = this.h1 ^ (this.count >>> 0);
    let h2 = this.h2 ^ ((this.count / TWO_POW_32) | 0);
    h1 = (h1 + h2) | 0;
    h2 = (h2 + h1) | 0;
    h1 = fmix32(h1);
    h2 = fmix32(h2);
    h1 = (h1 + h2) | 0;
    h2 = (h2 + h1) | 0;
    return hex8(h1) + hex8(h2);
  }

  /**
   * Starts (or with null, stops) capturing records that pass `filter`. Already captured records
   * are kept; at most `capturedMax` are held in total.
   */
  setCapture(filter: TraceFilter | null, capturedMax = TRACE_CAPTURED_MAX): void {
    this.filter = filter;
    this.capturedMax = capturedMax;
  }

  clearCaptured(): void {
    this.captured.length = 0;
    this.capturedTruncated = false;
  }

  private capture(type: number, tUs: number, f0: number, f1: number, f2: number, f3: number): void {
    if (this.captured.length >= this.capturedMax) {
      this.capturedTruncated = true;
      return;
    }
    this.captured.push(this.recordOf(type, tUs, f0, f1, f2, f3));
  }

  /** The record as capture stores it (named fields): for observers that consume records as they come. */
  recordOf(type: number, tUs: number, f0: number, f1: number, f2: number, f3: number): TraceRecord {
    const record: Record<string, number | string> = { tUs, type: this.typeNames[type]! };
    const fields = this.typeFields[type]!;
    const values = [f0, f1, f2, f3];
    for (let i = 0; i < fields.length; i++) record[fields[i]!] = values[i]!;
    return record as TraceRecord;
  }
}

/** One word into lane 1: xor, rotate, multiply by an odd constant, add — a bijection in either input. */
function mix1(h: number, k: number): number {
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 0x9e3779b1) + 0x7f4a7c15) | 0;
}

function mix2(h: number, k: number): number {
  h ^= k;
  h = (h << 17) | (h >>> 15);
  return (Math.imul(h, 0x85ebca77) + 0x165667b1) | 0;
}
