// The effective configuration (issue 17): every consumer setting of each group and every broker setting
// of each broker as the run used them, after defaults and --set — with the values that are RocketMQ's
// defaults (CONSUMER_CONFIG_DEFAULTS, BROKER_CONFIG_DEFAULTS, src/scenario/defaults.ts) marked, so what
// the scenario changed stands out.
import type { RunResult } from "../run/simulate.ts";
import { BROKER_CONFIG_DEFAULTS, CONSUMER_CONFIG_DEFAULTS } from "../scenario/defaults.ts";
import { escapeHtml, formatDisplay } from "./htmlSummary.ts";

export const CONFIG_STYLE = `
table.config td.default { color: #777; } table.config td.changed { font-weight: 600; background: #fff8dc; }
`;

type Value = number | string | boolean;

function show(v: Value): string {
  return typeof v === "number" ? formatDisplay(v) : String(v);
}

/** One table: a row per setting, a column per owner (group or broker); defaults grey, changes highlighted. */
function configTable(caption: string, owners: readonly { name: string; config: object }[], defaults: Readonly<Record<string, Value>>): string {
  const keys = Object.keys(defaults);
  const head = `<tr><th>setting</th>${owners.map((o) => `<th>${escapeHtml(o.name)}</th>`).join("")}<th>default</th></tr>`;
  const rows = keys.map((k) => {
    const cells = owners.map((o) => {
      const v = (o.config as Record<string, Value>)[k];
      if (v === undefined) return "<td>—</td>";
      const isDefault = v === defaults[k];
      return `<td class="${isDefault ? "default" : "changed"}"${isDefault ? ' title="RocketMQ\'s default"' : ""}>${escapeHtml(show(v))}</td>`;
    });
    return `<tr><td><code>${escapeHtml(k)}</code></td>${cells.join("")}<td class="default">${escapeHtml(show(defaults[k]!))}</td></tr>`;
  });
  return `<table class="config"><caption>${escapeHtml(caption)}</caption>\n<thead>${head}</thead>\n<tbody>\n${rows.join("\n")}\n</tbody></table>`;
}

export function renderConfig(result: RunResult): string {
  const m = result.model;
  const consumers = configTable("Consumer settings, per group", m.groups.map((g) => ({ name: g.name, config: g.config })), CONSUMER_CONFIG_DEFAULTS as unknown as Record<string, Value>);
  const brokers = configTable("Broker settings, per broker", m.brokers.map((b) => ({ name: b.name, config: b.config })), BROKER_CONFIG_DEFAULTS as unknown as Record<string, Value>);
  return `<h2 id="config">Effective configuration</h2>
<p class="meta">Every setting as this run used it (profile ${escapeHtml(m.profile)}, after the scenario, its defaults and any --set). Highlighted: different from RocketMQ's default; grey: the default. Units as in RocketMQ (ms, MiB for the size thresholds, minutes for consumeTimeout).</p>
<details open><summary>consumer and broker settings</summary>
<div class="tables">
${consumers}
${brokers}
</div></details>`;
}
