// JUnit XML is checked by reading it back with a strict little parser (below): it rejects what XML
// 1.0 rejects and that matters here — unbalanced tags, a bare `&` or `<`, unknown entities,
// forbidden control characters, duplicate attributes — so "it parses" means a CI parser would
// accept it too, and the assertions run on decoded names and values rather than on raw text.
import { describe, expect, it } from "vitest";
import { escapeXmlAttribute, escapeXmlText, RUN_ERROR_CASE, suiteName, toJUnitXml, type CheckSuite } from "./junit.ts";

interface XmlElement {
  tag: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decode(raw: string): string {
  if (/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(raw)) throw new Error(`bare & in ${JSON.stringify(raw)}`);
  return raw.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (_, ref: string) =>
    ref.startsWith("#x") ? String.fromCodePoint(parseInt(ref.slice(2), 16)) : ref.startsWith("#") ? String.fromCodePoint(Number(ref.slice(1))) : NAMED[ref]!,
  );
}

/** Attribute-value normalisation (XML 1.0 §3.3.3): literal tab, CR and LF become spaces. */
function decodeAttribute(raw: string): string {
  if (raw.includes("<")) throw new Error(`< in attribute ${JSON.stringify(raw)}`);
  return decode(raw.replace(/[\t\r\n]/g, " "));
}

function parseXml(xml: string): XmlElement {
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(xml)) throw new Error("forbidden control character");
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, "");
  const root: XmlElement = { tag: "#root", attrs: {}, children: [], text: "" };
  const stack: XmlElement[] = [root];
  const token = /<\/([\w:-]+)\s*>|<([\w:-]+)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>|([^<]+)|(<)/gy;
  let m: RegExpExecArray | null;
  while ((m = token.exec(body)) !== null) {
    const top = stack[stack.length - 1]!;
    if (m[6] !== undefined) throw new Error(`bad markup at ${m.index}: ${body.slice(m.index, m.index + 40)}`);
    if (m[1] !== undefined) {
      if (top.tag !== m[1]) throw new Error(`</${m[1]}> closes <${top.tag}>`);
      stack.pop();
    } else if (m[2] !== undefined) {
      const el: XmlElement = { tag: m[2], attrs: {}, children: [], text: "" };
      for (const a of (m[3] ?? "").matchAll(/([\w:-]+)="([^"]*)"/g)) {
        if (a[1]! in el.attrs) throw new Error(`duplicate attribute ${a[1]}`);
        el.attrs[a[1]!] = decodeAttribute(a[2]!);
      }
      top.children.push(el);
      if (m[4] !== "/") stack.push(el);
    } else {
      if (m[5]!.includes("]]>")) throw new Error("]]> in text");
      top.text += decode(m[5]!.replace(/\r\n?/g, "\n"));
    }
    if (token.lastIndex === body.length) break;
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.tag}>`);
  const elements = root.children;
  if (elements.length !== 1 || root.text.trim() !== "") throw new Error("not exactly one root element");
  return elements[0]!;
}

const kids = (el: XmlElement, tag: string) => el.children.filter((c) => c.tag === tag);

const TRICKY = `cache.countPerQueueMax <= 1000 & "lag" < 'x' > y`;

const SUITES: CheckSuite[] = [
  {
    name: "count-flow-control",
    file: "scenarios/count-flow-control.json",
    seed: 7,
    timeMs: 1234,
    cases: [
      { name: "messages.lost == 0", ok: true, actual: "messages.lost = 0" },
      { name: TRICKY, ok: false, actual: "cache.countPerQueueMax = 1032 & more" },
    ],
  },
  {
    name: "broker-crash",
    file: "scenarios/broker-crash.json",
    seed: 1,
    timeMs: 50,
    cases: [],
    error: "ConservationError: produced 10 ≠ accounted 9\n  at accountMessages",
  },
  {
    name: "count-flow-control",
    file: "scenarios/count-flow-control.json",
    seed: 3,
    timeMs: 999.5,
    cases: [{ name: "messages.lost == 0", ok: false, actual: "messages.lost = 2", message: "2 messages lost" }],
  },
];

describe("toJUnitXml", () => {
  const xml = toJUnitXml(SUITES);
  const root = parseXml(xml);
  const suites = kids(root, "testsuite");

  it("is well-formed XML with a declaration and a <testsuites> root", () => {
    expect(xml.startsWith(`<?xml version="1.0" encoding="UTF-8"?>\n`)).toBe(true);
    expect(root.tag).toBe("testsuites");
  });

  it("totals tests, failures, errors and time over every suite", () => {
    expect(root.attrs).toMatchObject({ tests: "4", failures: "2", errors: "1", time: "2.284" });
  });

  it("writes one <testsuite> per scenario and seed, sorted by file, scenario, seed", () => {
    expect(suites.map((s) => s.attrs.name)).toEqual(["broker-crash (seed 1)", "count-flow-control (seed 3)", "count-flow-control (seed 7)"]);
    expect(suites.map((s) => [s.attrs.tests, s.attrs.failures, s.attrs.errors, s.attrs.skipped, s.attrs.time])).toEqual([
      ["1", "0", "1", "0", "0.050"],
      ["1", "1", "0", "0", "1.000"],
      ["2", "1", "0", "0", "1.234"],
    ]);
    expect(suiteName({ name: "x", seed: 7 })).toBe("x (seed 7)");
  });

  it("records the scenario file and seed as suite properties", () => {
    const props = kids(kids(suites[2]!, "properties")[0]!, "property").map((p) => [p.attrs.name, p.attrs.value]);
    expect(props).toEqual([["file", "scenarios/count-flow-control.json"], ["seed", "7"]]);
  });

  it("names each test case after its expression, with the scenario as classname, escapes included", () => {
    const cases = kids(suites[2]!, "testcase");
    expect(cases.map((c) => [c.attrs.classname, c.attrs.name])).toEqual([
      ["count-flow-control", "messages.lost == 0"],
      ["count-flow-control", TRICKY],
    ]);
    expect(xml).toContain("&lt;= 1000 &amp; &quot;lag&quot; &lt; &apos;x&apos; &gt; y");
  });

  it("puts a <failure> with the actual figures only under expectations that did not hold", () => {
    const [passed, failed] = kids(suites[2]!, "testcase");
    expect(passed!.children).toEqual([]);
    const failure = kids(failed!, "failure");
    expect(failure).toHaveLength(1);
    expect(failure[0]!.attrs.message).toBe(`${TRICKY} did not hold (actual: cache.countPerQueueMax = 1032 & more)`);
    expect(failure[0]!.attrs.type).toBe("expectation");
    expect(failure[0]!.text).toBe("actual: cache.countPerQueueMax = 1032 & more");
    expect(kids(suites[1]!, "testcase")[0]!.children[0]!.attrs.message).toBe("2 messages lost");
  });

  it("reports a failed run as one <error> test case carrying the whole error, first line as message", () => {
    const cases = kids(suites[0]!, "testcase");
    expect(cases).toHaveLength(1);
    expect(cases[0]!.attrs).toMatchObject({ classname: "broker-crash", name: RUN_ERROR_CASE, time: "0.050" });
    const error = kids(cases[0]!, "error")[0]!;
    expect(error.attrs.message).toBe("ConservationError: produced 10 ≠ accounted 9");
    expect(error.text).toBe("ConservationError: produced 10 ≠ accounted 9\n  at accountMessages");
    expect(kids(cases[0]!, "failure")).toEqual([]);
  });

  it("keeps expectations evaluated before the run failed next to the error case", () => {
    const suite: CheckSuite = { ...SUITES[0]!, error: "boom" };
    const parsed = kids(parseXml(toJUnitXml([suite])), "testsuite")[0]!;
    expect(parsed.attrs).toMatchObject({ tests: "3", failures: "1", errors: "1" });
    expect(kids(parsed, "testcase").map((c) => c.attrs.name)).toEqual(["messages.lost == 0", TRICKY, RUN_ERROR_CASE]);
  });

  it("is deterministic: same results in any order give the same bytes, with no timestamp unless given", () => {
    expect(toJUnitXml([...SUITES].reverse())).toBe(xml);
    expect(xml).not.toContain("timestamp");
    const stamped = parseXml(toJUnitXml(SUITES, { timestamp: "2024-05-01T12:00:00", name: "nightly" }));
    expect(stamped.attrs.name).toBe("nightly");
    expect(kids(stamped, "testsuite").map((s) => s.attrs.timestamp)).toEqual(Array(3).fill("2024-05-01T12:00:00"));
  });

  it("writes an empty but valid document for no suites", () => {
    const empty = parseXml(toJUnitXml([]));
    expect(empty.attrs).toMatchObject({ tests: "0", failures: "0", errors: "0", time: "0.000" });
    expect(empty.children).toEqual([]);
  });

  it("treats a negative or non-finite time as zero", () => {
    const parsed = parseXml(toJUnitXml([{ ...SUITES[1]!, timeMs: Number.NaN }, { ...SUITES[2]!, timeMs: -5 }]));
    expect(kids(parsed, "testsuite").map((s) => s.attrs.time)).toEqual(["0.000", "0.000"]);
  });
});

describe("the test's XML parser", () => {
  it("rejects what an XML 1.0 parser rejects, so passing it means something", () => {
    for (const bad of ["<a>&</a>", "<a><b></a>", '<a x="<"/>', "<a>\u0001</a>", "<a>&nbsp;</a>", '<a x="1" x="2"/>', "<a/><b/>", "<a>]]></a>", "<a"]) {
      expect(() => parseXml(bad), bad).toThrow();
    }
    expect(parseXml('<a x="&#10;&lt;">t&amp;</a>')).toEqual({ tag: "a", attrs: { x: "\n<" }, children: [], text: "t&" });
  });
});

describe("XML escaping", () => {
  it("escapes the five markup characters in text and attributes", () => {
    expect(escapeXmlText(`a<=b & "c" 'd' >`)).toBe("a&lt;=b &amp; &quot;c&quot; &apos;d&apos; &gt;");
    expect(escapeXmlAttribute(`a<=b & "c" 'd' >`)).toBe("a&lt;=b &amp; &quot;c&quot; &apos;d&apos; &gt;");
  });

  it("keeps tabs and newlines through attribute normalisation, and CR everywhere", () => {
    const name = "line1\nline2\tend\r";
    const suite: CheckSuite = { name: "s", file: "f", seed: 1, timeMs: 0, cases: [{ name, ok: false, actual: "a\r\nb" }] };
    const testcase = kids(kids(parseXml(toJUnitXml([suite])), "testsuite")[0]!, "testcase")[0]!;
    expect(testcase.attrs.name).toBe(name);
    expect(kids(testcase, "failure")[0]!.text).toBe("actual: a\r\nb");
  });

  it("replaces characters XML 1.0 forbids (controls, lone surrogates, U+FFFF) with visible \\u escapes", () => {
    const nasty = "a\u0000b\u0001c\u001Bd\uD800e\uFFFFf";
    const suite: CheckSuite = { name: nasty, file: "f", seed: 1, timeMs: 0, cases: [{ name: nasty, ok: false, actual: nasty }], error: nasty };
    const xml = toJUnitXml([suite]);
    const testcase = kids(kids(parseXml(xml), "testsuite")[0]!, "testcase")[0]!;
    const visible = "a\\u0000b\\u0001c\\u001Bd\\uD800e\\uFFFFf";
    expect(testcase.attrs.name).toBe(visible);
    expect(kids(testcase, "failure")[0]!.text).toBe(`actual: ${visible}`);
    expect(xml).not.toMatch(/&#(0|1|27);/);
  });

  it("keeps valid surrogate pairs and non-ASCII text as they are", () => {
    expect(escapeXmlText("p99 ≤ 2s 🚀")).toBe("p99 ≤ 2s 🚀");
  });

  it("cuts a very long failure message attribute but keeps the full text in the body", () => {
    const actual = "x".repeat(2000);
    const suite: CheckSuite = { name: "s", file: "f", seed: 1, timeMs: 0, cases: [{ name: "e", ok: false, actual }] };
    const failure = kids(kids(kids(parseXml(toJUnitXml([suite])), "testsuite")[0]!, "testcase")[0]!, "failure")[0]!;
    expect(failure.attrs.message!.length).toBe(500);
    expect(failure.text).toBe(`actual: ${actual}`);
  });

  it("puts a failure's details after the actual figures in its body, one per line", () => {
    const xml = toJUnitXml([{ name: "s", file: "s.json", seed: 1, timeMs: 0, cases: [
      { name: "max(lag.committed) < 1500", ok: false, actual: "max(lag.committed) = 2000", message: "over", details: ["at 10s", "reproduce: rmqsim run s.json --seed 1"] },
    ] }]);
    expect(xml).toContain('<failure message="over" type="expectation">actual: max(lag.committed) = 2000\nat 10s\nreproduce: rmqsim run s.json --seed 1</failure>');
  });
});
