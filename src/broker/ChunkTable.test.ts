// ChunkTable: the per-chunk columns of a consume queue (draw, first born time and position, page
// positions) in blocks — growth across blocks, page positions kept as Uint32 offsets or, when one does
// not fit exactly, as doubles, and what a retention drop or a truncate forgets.
import { describe, expect, it } from "vitest";
import { CHUNK_BITS, ChunkTable, PAGE_BITS } from "./ChunkTable.ts";

const CHUNK = 1 << CHUNK_BITS;
const PAGES = CHUNK >>> PAGE_BITS;

/** A chunk's commit-log column whose page k (row k·256) is at pos(k); the rows between are noise. */
function clColumn(pos: (k: number) => number): Float64Array {
  const col = new Float64Array(CHUNK).fill(-7);
  for (let k = 0; k < PAGES; k++) col[k << PAGE_BITS] = pos(k);
  return col;
}

/** What fillClPos writes for a chunk, as its 16 page positions (and checks each page's rows agree). */
function pagesOf(table: ChunkTable, ci: number): number[] {
  const col = new Float64Array(CHUNK);
  table.fillClPos(ci, col);
  const pages: number[] = [];
  for (let k = 0; k < PAGES; k++) {
    const rows = col.subarray(k << PAGE_BITS, (k + 1) << PAGE_BITS);
    expect(rows.every((x) => Object.is(x, rows[0]))).toBe(true);
    pages.push(rows[0]!);
  }
  return pages;
}

/** Chunk ci's first position in the tests below (above 2^32: offsets are from it, not from 0). */
const firstPos = (ci: number) => 5e9 + 1e6 * ci;

function opened(n: number): ChunkTable {
  const table = new ChunkTable();
  for (let ci = 0; ci < n; ci++) table.open(ci, ci % 5 === 0 ? -1 : 3 * ci, 1e10 + ci, firstPos(ci));
  return table;
}

describe("ChunkTable.open: per-chunk columns in growing blocks", () => {
  it("reads back every chunk's draw, first born time and first position across several blocks", () => {
    const table = opened(600); // blocks of 256: two full, one growing
    for (const ci of [0, 7, 8, 255, 256, 511, 512, 599]) {
      expect([table.draw(ci), table.firstBornUs(ci), table.firstClPos(ci)]).toEqual([ci % 5 === 0 ? -1 : 3 * ci, 1e10 + ci, firstPos(ci)]);
    }
    table.setDraw(8, -1);
    expect([table.draw(7), table.draw(8), table.draw(9)]).toEqual([21, -1, 27]);
  });

  it("refuses a chunk that does not follow the last one started", () => {
    const table = opened(3);
    expect(() => table.open(600, 0, 0, 0)).toThrow(RangeError);
  });
});

describe("ChunkTable.setPages and fillClPos: page positions read back exactly", () => {
  it("keeps non-decreasing positions within 4 GiB of the first as offsets", () => {
    const table = opened(300);
    const pos = (ci: number) => (k: number) => firstPos(ci) + k * 2_000_000 + (k === 15 ? 2 ** 32 - 1 - 30_000_000 : 0);
    for (const ci of [0, 9, 299]) table.setPages(ci, clColumn(pos(ci)));
    expect(table.pagesExactCount).toBe(0);
    for (const ci of [0, 9, 299]) expect(pagesOf(table, ci)).toEqual(Array.from({ length: PAGES }, (_, k) => pos(ci)(k)));
  });

  it("falls back to doubles for a chunk spanning 4 GiB or more, a position that went back, or a fraction", () => {
    const table = opened(4);
    const cases: ((k: number) => number)[] = [
      (k) => firstPos(0) + k * 2 ** 29, // page 8 is 4 GiB past the first
      (k) => firstPos(1) + (k === 6 ? -100 : k * 1000), // a crash cut the commit log: page 6 went back
      (k) => firstPos(2) + k * 1000 + (k === 3 ? 0.5 : 0),
    ];
    cases.forEach((pos, ci) => table.setPages(ci, clColumn(pos)));
    table.setPages(3, clColumn((k) => firstPos(3) + k));
    expect(table.pagesExactCount).toBe(3);
    cases.forEach((pos, ci) => expect(pagesOf(table, ci)).toEqual(Array.from({ length: PAGES }, (_, k) => pos(k))));
    expect(pagesOf(table, 3)).toEqual(Array.from({ length: PAGES }, (_, k) => firstPos(3) + k));
  });

  it("falls back when page 0 is not the chunk's first position, and turns back into offsets when set again", () => {
    const table = opened(1);
    table.setPages(0, clColumn((k) => firstPos(0) + 1 + k));
    expect(table.pagesExactCount).toBe(1);
    expect(pagesOf(table, 0)[0]).toBe(firstPos(0) + 1);
    table.setPages(0, clColumn((k) => firstPos(0) + k));
    expect(table.pagesExactCount).toBe(0);
    expect(pagesOf(table, 0)).toEqual(Array.from({ length: PAGES }, (_, k) => firstPos(0) + k));
  });
});

describe("ChunkTable.dropBelow and truncate", () => {
  it("a retention drop forgets whole blocks below the chunk; the rest and later chunks read back the same", () => {
    const table = opened(600);
    const pos = (ci: number) => (k: number) => firstPos(ci) + 7 * k;
    for (const ci of [300, 520]) table.setPages(ci, clColumn(pos(ci)));
    table.setPages(100, clColumn((k) => firstPos(100) + k * 2 ** 30)); // a fallback below the drop
    table.setPages(510, clColumn((k) => firstPos(510) + k * 2 ** 30)); // one above it
    table.dropBelow(300);
    expect(table.pagesExactCount).toBe(1);
    for (const ci of [300, 400, 599]) expect([table.draw(ci), table.firstBornUs(ci)]).toEqual([ci % 5 === 0 ? -1 : 3 * ci, 1e10 + ci]);
    for (const ci of [300, 520]) expect(pagesOf(table, ci)).toEqual(Array.from({ length: PAGES }, (_, k) => pos(ci)(k)));
    expect(pagesOf(table, 510)[15]).toBe(firstPos(510) + 15 * 2 ** 30);
    table.open(600, 1, 2, 3);
    expect([table.draw(600), table.firstBornUs(600), table.firstClPos(600)]).toEqual([1, 2, 3]);
  });

  it("after a drop of everything, the next chunk opens wherever the queue resumes", () => {
    const table = opened(10);
    table.dropBelow(700);
    table.open(700, 5, 6, 7);
    table.open(701, 8, 9, 10);
    expect([table.draw(700), table.firstClPos(701)]).toEqual([5, 10]);
  });

  it("a truncate forgets the chunks from the cut on: they are opened again, and their fallbacks go", () => {
    const table = opened(600);
    table.setPages(520, clColumn((k) => firstPos(520) - k)); // positions going back: doubles
    table.setPages(100, clColumn((k) => firstPos(100) - k));
    table.truncate(256); // a block boundary: the last two blocks go
    expect(table.pagesExactCount).toBe(1);
    table.open(256, 42, 43, 44);
    expect([table.draw(256), table.firstBornUs(256), table.firstClPos(256), table.draw(254)]).toEqual([42, 43, 44, 3 * 254]);
    table.truncate(100);
    expect(table.pagesExactCount).toBe(0);
    table.open(100, -1, 1, 2);
    expect([table.draw(100), table.firstClPos(100), table.firstClPos(99)]).toEqual([-1, 2, firstPos(99)]);
  });
});
