// Shared by the browser tests: where Debian's Chromium is, how to launch it in this sandbox, and a
// pixel count that tells a drawn chart from an empty canvas.
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
/** Headless, and without the background networking this machine's closed network would refuse. */
export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];
export const hasChromium = existsSync(CHROMIUM);
export const SKIP_NOTE = "install Debian's chromium (apt-get install chromium) to run the browser test";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
}
// The lib is ES2022 without DOM types; this describes the little the page callback touches.
declare const document: { getElementById(id: string): PageCanvas };

/** Pixels of the canvas that are neither white nor transparent: axes, text, lines and cells. */
export function inkedPixels(page: Page, canvasId: string): Promise<number> {
  return page.evaluate((id) => {
    const canvas = document.getElementById(id);
    const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let inked = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      const white = pixels[i]! > 245 && pixels[i + 1]! > 245 && pixels[i + 2]! > 245;
      if (pixels[i + 3]! > 0 && !white) inked++;
    }
    return inked;
  }, canvasId);
}
