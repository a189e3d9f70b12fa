import lighthouse from "lighthouse";
import * as chromeLauncher from "chrome-launcher";

// Lighthouse's four categories for a page of the console, in Debian's Chromium (never a downloaded
// browser), signed in by the session cookie sent as a header. Chromium starts with the flags this
// machine's closed network needs (no background networking, no component updates).

export const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
export type Scores = Record<(typeof CATEGORIES)[number], number>;

export async function lighthouseScores(urls: string[], headers: Record<string, string>): Promise<Map<string, Scores>> {
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    chromeFlags: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const out = new Map<string, Scores>();
  try {
    for (const url of urls) {
      const result = await lighthouse(url, {
        port: chrome.port,
        output: "json",
        logLevel: "error",
        onlyCategories: [...CATEGORIES],
        extraHeaders: headers,
        // Loopback is the network here: measure it as it is, without a simulated slow phone line.
        throttlingMethod: "provided",
        formFactor: "desktop",
        screenEmulation: { mobile: false, width: 1280, height: 900, deviceScaleFactor: 1, disabled: false },
      });
      if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
      const { categories, runtimeError } = result.lhr;
      if (runtimeError) throw new Error(`Lighthouse failed on ${url}: ${runtimeError.message}`);
      // Scores of the sign-in page a lost session redirects to would say nothing of the console.
      if (result.lhr.finalDisplayedUrl !== url) throw new Error(`Lighthouse was sent from ${url} to ${result.lhr.finalDisplayedUrl}`);
      const failing = Object.values(result.lhr.audits)
        .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === "binary")
        .map((a) => a.id);
      if (failing.length) console.log(`lighthouse ${url}: audits not passed: ${failing.join(", ")}`);
      out.set(url, Object.fromEntries(CATEGORIES.map((c) => [c, Math.round((categories[c]?.score ?? 0) * 100)])) as Scores);
    }
  } finally {
    chrome.kill();
  }
  return out;
}
