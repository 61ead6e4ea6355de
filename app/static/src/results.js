// Shows a results document as DOM nodes. Every learner-derived string goes through
// textContent, never innerHTML: output and messages may contain anything.

import { showFigures } from "./figures.js";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// Feedback marks code with backticks; show those spans as <code>, the rest as plain text.
function richText(tag, className, text) {
  const node = el(tag, className);
  String(text).split(/`([^`\n]+)`/).forEach((part, index) => {
    if (part) node.append(index % 2 ? el("code", null, part) : document.createTextNode(part));
  });
  return node;
}

function lineButton(line, strings, onLine) {
  const button = el("button", "line-link", `${strings.line} ${line}`);
  button.type = "button";
  button.addEventListener("click", () => onLine(line));
  return button;
}

function verdict(result, strings) {
  const status = ["pass", "fail", "error"].includes(result.status) ? result.status : "error";
  const box = el("p", `verdict ${status}`);
  box.append(el("span", "verdict-text", strings[`verdict_${status}`]));
  box.dataset.status = status;
  if (status !== "error" && typeof result.score === "number") {
    box.append(el("span", "score", `${strings.score}: ${Math.round(result.score * 100)}%`));
  }
  return box;
}

function errorDetail(result, strings, onLine) {
  const box = el("div", "error-box");
  box.append(el("h3", null, strings[`error_${result.error_kind}`] || strings.error));
  if (result.message) box.append(el("div", "error-detail", result.message));
  if (Number.isInteger(result.line)) box.append(lineButton(result.line, strings, onLine));
  return box;
}

// A check skipped because another did not pass carries that check's id (`blocked_by`, results
// v1; the server fills it in for documents stored before it). Learners know checks by their
// titles (in their language), never by internal ids.
export function explainSkip(test, titles, strings) {
  const blocker = typeof test.blocked_by === "string" ? test.blocked_by : null;
  if (!blocker) return test.message;
  return strings.depends_on.replace("{title}", titles[blocker] || blocker);
}

// Other messages may name a check by its id in quotes ('update-after-step'): show its title.
export function titledChecks(message, titles) {
  return String(message || "").replace(/'([a-z0-9][a-z0-9-]*)'/g,
    (whole, id) => (Object.hasOwn(titles, id) ? `“${titles[id]}”` : whole));
}

// The hint ladder: after the nudge (test.hint), each press asks the server for the next rung,
// the concept with its lesson section, then the API. The server records the reveal.
async function askRung(hintsUrl, check, rung) {
  const url = `${hintsUrl}${encodeURIComponent(check)}/${rung}`;
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: "{}",
    credentials: "same-origin",
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

function rungNode(found, strings) {
  const node = richText("p", `test-hint hint-rung hint-${found.kind === "api" ? "api" : "concept"}`, found.text);
  node.prepend(el("strong", null, `${strings[`hint_${found.kind}`] || strings.hint}: `));
  // Only a same-origin path from the server becomes a link: the href is never learner-derived.
  if (typeof found.lesson_url === "string" && found.lesson_url.startsWith("/")) {
    const link = el("a", "hint-lesson", found.lesson_title || strings.hint_lesson);
    link.href = found.lesson_url;
    node.append(" ", el("span", null, `${strings.hint_lesson}: `), link);
  }
  return node;
}

function ladder(item, test, strings, hintsUrl) {
  let next = 2;
  const button = el("button", "hint-more", strings.hint_more);
  button.type = "button";
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const found = await askRung(hintsUrl, test.check, next);
      button.before(rungNode(found, strings));
      next += 1;
      if (found.more) button.disabled = false;
      else button.remove();
    } catch {
      button.disabled = false;
      button.textContent = strings.hint_failed;
    }
  });
  item.append(button);
}

function testItem(test, strings, onLine, titles, hintsUrl) {
  const status = ["pass", "fail", "error", "skip"].includes(test.status) ? test.status : "error";
  // A skip the grader could not verify here (no GPU, say) counts neither way: say so, not "skipped".
  const unverifiable = status === "skip" && test.unverifiable === true;
  const item = el("li", `test ${status}${unverifiable ? " unverifiable" : ""}`);
  item.dataset.check = test.check || "";
  const head = el("div", "test-head");
  head.append(el("span", "test-title", test.title || test.name));
  if (Number.isInteger(test.line) && status !== "pass") head.append(lineButton(test.line, strings, onLine));
  head.append(el("span", `badge ${status}`, unverifiable ? strings.unverifiable : strings[status]));
  item.append(head);
  const message = titledChecks(
    status === "skip" ? explainSkip(test, titles, strings) : test.message, titles);
  if (message) item.append(richText("p", "test-message", message));
  if (test.hint && status !== "pass") {
    const hint = richText("p", "test-hint", test.hint);
    hint.prepend(el("strong", null, `${strings.hint}: `));
    item.append(hint);
    if (hintsUrl && test.check && strings.hint_more) ladder(item, test, strings, hintsUrl);
  }
  return item;
}

// Three significant digits, trailing zeros dropped ("0.2", "1.09e+3"); anything else a dash.
function ms(value) {
  if (!Number.isFinite(value)) return "–";
  const [digits, exponent] = value.toPrecision(3).split("e");
  const short = digits.includes(".") ? digits.replace(/0+$/, "").replace(/\.$/, "") : digits;
  return exponent ? `${short}e${exponent}` : short;
}

// Where a measuring exercise measured, and the spread of the grader's own timings. The grader
// bounds every value (grader/measurement.py); here numbers are checked again and texts go
// through textContent.
export function measurementTable(m, strings) {
  if (!m || typeof m !== "object" || !Array.isArray(m.rows) || !m.rows.length) return null;
  const cuda = m.device === "cuda";
  const box = el("section", "measurement");
  box.dataset.measurement = "";
  box.append(el("h4", null, strings.measured_where));
  const flags = Array.isArray(m.cpu_flags) ? m.cpu_flags.slice(0, 8).map(String) : [];
  const cpu = `${strings.cpu}: ${m.cpu_model} (${[m.cpu_capability, ...flags].join(", ")})`;
  const bf16 = m.bf16_native ? strings.bf16_native : strings.bf16_emulated;
  const parts = cuda ? [`${m.device_name}${m.bf16_native ? `, ${strings.bf16_native}` : ""}`, cpu]
    : [`${cpu}, ${bf16}`];
  parts.push(`${strings.threads} ${m.threads}`, `torch ${m.torch}`, `${strings.batch} ${m.batch_size}`);
  box.append(el("p", "meta measurement-machine", parts.join("; ")));
  const table = el("table", "measurement-data");
  const head = el("tr");
  const columns = ["col_width", "col_precision", "col_min", "col_median", "col_max", "col_steps", "col_yours"];
  if (cuda) columns.push("col_peak");
  for (const key of columns) head.append(el("th", null, strings[key]));
  const body = el("tbody");
  for (const row of m.rows.slice(0, 16)) {
    if (!row || typeof row !== "object") continue;
    const cells = [row.width, row.precision, ms(row.min_ms), ms(row.median_ms), ms(row.max_ms), row.repeats,
      ms(row.learner_ms)];
    if (cuda) cells.push(ms(row.peak_mb));
    const tr = el("tr");
    for (const cell of cells) tr.append(el("td", null, cell));
    body.append(tr);
  }
  const thead = el("thead");
  thead.append(head);
  table.append(thead, body);
  box.append(table, el("p", "meta", strings.measured_note));
  return box;
}

// Returns the learner's lines that failing checks or the error point at.
export function failingLinesOf(result) {
  const lines = [];
  if (Number.isInteger(result.line)) lines.push(result.line);
  for (const test of result.tests || []) {
    if ((test.status === "fail" || test.status === "error") && Number.isInteger(test.line)) lines.push(test.line);
  }
  return lines;
}

// Checks skipped for one same reason (the function stopped before they could look) read as one
// card naming them all: a starter once made a phone page of a dozen identical cards.
const GROUP_AT = 3;

function skipGroups(tests, titles, strings) {
  const groups = new Map();
  for (const test of tests) {
    if (test.status !== "skip") continue;
    const message = titledChecks(explainSkip(test, titles, strings), titles);
    if (!groups.has(message)) groups.set(message, []);
    groups.get(message).push(test);
  }
  return [...groups].filter(([, members]) => members.length >= GROUP_AT);
}

function groupItem(message, members, strings) {
  const item = el("li", "test skip skip-group");
  item.dataset.checks = members.map((test) => test.check || "").join(" ");
  const head = el("div", "test-head");
  head.append(el("span", "test-title", strings.skip_group.replace("{count}", members.length)));
  head.append(el("span", "badge skip", strings.skip));
  item.append(head);
  if (message) item.append(richText("p", "test-message", message));
  const details = el("details", "skip-members");
  details.append(el("summary", null, strings.skip_which));
  const list = el("ul");
  for (const test of members) list.append(el("li", null, test.title || test.name));
  details.append(list);
  item.append(details);
  return item;
}

// A check's words in the page's language when the grader wrote them in both (tests[].texts):
// feedback once stayed in the language it was graded in.
export function inPageLanguage(test, lang = document.documentElement.lang) {
  const other = test && test.texts && typeof test.texts === "object" ? test.texts[lang] : null;
  if (!other || typeof other !== "object") return test;
  const words = {};
  for (const key of ["title", "message", "hint"]) if (typeof other[key] === "string") words[key] = other[key];
  return { ...test, ...words };
}

export function showResult(container, result, strings, onLine) {
  result = { ...result, tests: (result.tests || []).map((test) => inPageLanguage(test)) };
  container.replaceChildren(verdict(result, strings));
  if (result.status === "error") container.append(errorDetail(result, strings, onLine));
  const tests = result.tests || [];
  if (tests.length) {
    const list = el("ol", "test-list");
    const titles = Object.fromEntries(tests.map((test) => [test.check, test.title || test.name]));
    // The page that may reveal rungs says where to ask (the exercise page; not a past submission).
    const hintsUrl = container.closest("[data-hints-url]")?.dataset.hintsUrl || "";
    const grouped = new Map();
    for (const [message, members] of strings.skip_group ? skipGroups(tests, titles, strings) : []) {
      for (const test of members) grouped.set(test, [message, members]);
    }
    for (const test of tests) {
      const group = grouped.get(test);
      if (!group) list.append(testItem(test, strings, onLine, titles, hintsUrl));
      else if (group[1][0] === test) list.append(groupItem(group[0], group[1], strings));
    }
    container.append(list);
  }
  showFigures(container, result.figures);
  const measured = measurementTable(result.measurement, strings);
  if (measured) container.append(measured);
  if (Array.isArray(result.advice) && result.advice.length) {
    container.append(el("h3", null, strings.advice));
    const list = el("ul", "advice");
    for (const note of result.advice) list.append(richText("li", null, note));
    container.append(list);
  }
  if (result.output) {
    const details = el("details", "output");
    details.append(el("summary", null, strings.output), el("pre", null, result.output));
    container.append(details);
  }
}

export function showProblem(container, message) {
  container.replaceChildren(el("p", "verdict error", message));
}
