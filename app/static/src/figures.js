// Draws a results document's figures as SVG, from their numbers only. Texts go through
// textContent; nothing from the results is ever parsed as markup.

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 560, HEIGHT = 300, LEFT = 76, RIGHT = 16, TOP = 16, BOTTOM = 48;
// app/progress/figures.py computes the same layout: FONT, FEW_VALUES and the label rule match it.
const FONT = 13, FEW_VALUES = 8, CAP = 4;
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

const finite = (v) => typeof v === "number" && Number.isFinite(v);
// The same domain and rules as app/progress/figures.py: numbers outside it skip the figure,
// ranges narrower than a billionth of their size are drawn as one value, and ticks are
// counted (never accumulated), so no input makes a loop run on.
const LIMIT = 1e300, TINY = 1e-300, MIN_RELATIVE_SPAN = 1e-9, MAX_TICKS = 12;
const MAX_FIGURE_POINTS = 2000, MAX_MARKS = 500; // grader/figures.py: all series together
const drawable = (v) => finite(v) && (v === 0 || (Math.abs(v) >= TINY && Math.abs(v) <= LIMIT));
// Spreads are newer than validation's bounds, so every stored one passed grader/figures.py:
// the browser keeps what it keeps (1e-30..1e30 in size) and drops the rest the same way.
const MAX_MAGNITUDE = 1e30, MIN_MAGNITUDE = 1e-30;
const bounded = (v) => finite(v) && (v === 0 || (Math.abs(v) >= MIN_MAGNITUDE && Math.abs(v) <= MAX_MAGNITUDE));

// A series' whiskers [[x, low, high], ...], or [] where grader/figures.py would drop them: more
// entries than points, an entry not at a point's x, low > high, or not positive on a log axis.
function spreadOf(raw, points, ylog) {
  if (!Array.isArray(raw) || raw.length > points.length) return [];
  const xs = new Set(points.map((p) => p[0]));
  const ok = raw.every((w) => Array.isArray(w) && w.length === 3 && w.every(bounded)
    && xs.has(w[0]) && w[1] <= w[2] && (!ylog || w[1] > 0));
  return ok ? raw : [];
}

function extent(values) {
  let low = Infinity, high = -Infinity; // a loop: Math.min(...values) throws on huge arrays
  for (const v of values) { if (v < low) low = v; if (v > high) high = v; }
  return [low, high];
}

function linearRange(values) {
  const [low, high] = extent(values);
  const magnitude = Math.max(Math.abs(low), Math.abs(high));
  if (!(high - low > magnitude * MIN_RELATIVE_SPAN)) {
    const half = magnitude > 0 ? magnitude * 0.05 : 1, middle = (low + high) / 2;
    return [middle - half, middle + half];
  }
  const pad = (high - low) * 0.05;
  return [low >= 0 && low - pad < 0 ? 0 : low - pad, high + pad];
}

function linearTicks(low, high) {
  const raw = (high - low) / 5, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const start = Math.ceil(low / step) * step;
  const count = Math.min(MAX_TICKS, Math.floor((high - start) / step) + 1);
  const ticks = [];
  for (let i = 0; i < count; i += 1) ticks.push(start + i * step);
  return ticks;
}

// extra (whisker ends) widens the range only: a log axis labels the points' own values.
function axis(values, log, size, flip, extra = []) {
  let share, ticks;
  const ranged = values.concat(extra);
  if (log) {
    const [low, high] = extent(ranged);
    const first = Math.floor(Math.log10(low));
    const last = Math.max(Math.ceil(Math.log10(high)), first + 1);
    const stride = Math.max(1, Math.floor((last - first) / 6) + 1);
    ticks = [];
    for (let e = first; e <= last; e += stride) ticks.push(10 ** e);
    const distinct = [...new Set(values)].sort((a, b) => a - b);
    if (distinct.length <= FEW_VALUES) ticks = distinct; // a loss scale of 65536 reads as 65536
    share = (v) => (Math.log10(v) - first) / (last - first);
  } else {
    const [low, high] = linearRange(ranged);
    ticks = linearTicks(low, high).filter((t) => t >= low && t <= high);
    // Counts (steps, widths) get whole-number ticks: "step 1.2" means nothing.
    if (ranged.every(Number.isInteger)) {
      const whole = ticks.filter(Number.isInteger);
      ticks = whole.length >= 2 ? whole : [...new Set(ranged)].sort((a, b) => a - b).slice(0, 8);
    }
    share = (v) => (v - low) / (high - low);
  }
  const place = (v) => (flip ? 1 - share(v) : share(v)) * size;
  return { place, ticks };
}

function label(v) {
  if (Number.isInteger(v) && Math.abs(v) < 1e7) return String(v);
  if (v !== 0 && (Math.abs(v) >= 1e5 || Math.abs(v) < 1e-2)) {
    const [mantissa, exponent] = v.toExponential(1).split("e");
    return `${mantissa.replace(/\.0$/, "")}e${Number(exponent)}`;
  }
  return String(+v.toPrecision(4));
}

function drawFigure(figure) {
  const series = (Array.isArray(figure.series) ? figure.series : []).slice(0, 6)
    .map((s) => ({ name: String((s && s.name) || ""), points: Array.isArray(s && s.points) ? s.points : [],
                   raw: s && s.spread }));
  // More points than the server accepts: not a figure it sent, and not one to draw.
  if (series.reduce((sum, s) => sum + s.points.length, 0) > MAX_FIGURE_POINTS) return null;
  const xlog = figure.x_scale === "log", ylog = figure.y_scale === "log";
  const points = series.flatMap((s) => s.points);
  // One point the server would not draw means the figure is not drawn (the server validated
  // it; anything else did not come from it).
  if (!points.length || !points.every((p) => Array.isArray(p) && p.length === 2 && drawable(p[0]) && drawable(p[1])
      && (!xlog || p[0] > 0) && (!ylog || p[1] > 0))) return null;
  const marks = (Array.isArray(figure.marks) ? figure.marks : []).slice(0, MAX_MARKS)
    .filter((m) => m && drawable(m.x) && (!xlog || m.x > 0));
  const w = WIDTH - LEFT - RIGHT, h = HEIGHT - TOP - BOTTOM;
  const x = axis(points.map((p) => p[0]).concat(marks.map((m) => m.x)), xlog, w, false);
  series.forEach((s) => { s.spread = spreadOf(s.raw, s.points, ylog); });
  const ends = series.flatMap((s) => s.spread.flatMap((w) => [w[1], w[2]]));
  const y = axis(points.map((p) => p[1]), ylog, h, true, ends);
  const root = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: "100%", role: "img" });
  const g = svg("g", { "font-family": "sans-serif", "font-size": FONT, fill: "#333" });
  root.append(g);
  for (const t of y.ticks) {
    const at = TOP + y.place(t);
    g.append(svg("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: at, y2: at, stroke: "#e3e3e3" }),
             svg("text", { x: LEFT - 6, y: at + 4, "text-anchor": "end" }, label(t)));
  }
  for (const t of x.ticks) {
    const at = LEFT + x.place(t);
    g.append(svg("line", { x1: at, x2: at, y1: HEIGHT - BOTTOM, y2: HEIGHT - BOTTOM + 4, stroke: "#333" }),
             svg("text", { x: at, y: HEIGHT - BOTTOM + 18, "text-anchor": "middle" }, label(t)));
  }
  g.append(svg("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: HEIGHT - BOTTOM, y2: HEIGHT - BOTTOM, stroke: "#333" }),
           svg("line", { x1: LEFT, x2: LEFT, y1: TOP, y2: HEIGHT - BOTTOM, stroke: "#333" }),
           svg("text", { x: (LEFT + WIDTH - RIGHT) / 2, y: HEIGHT - 6, "text-anchor": "middle" }, figure.x_label || ""),
           svg("text", { transform: `translate(12 ${(TOP + HEIGHT - BOTTOM) / 2}) rotate(-90)`, "text-anchor": "middle" }, figure.y_label || ""));
  for (const mark of marks) {
    const at = LEFT + x.place(mark.x);
    const line = svg("line", { x1: at, x2: at, y1: TOP, y2: HEIGHT - BOTTOM, stroke: "#d62728", "stroke-dasharray": "4 3" });
    line.append(svg("title", {}, mark.label || ""));
    g.append(line);
  }
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const dots = s.points.map((p) => [LEFT + x.place(p[0]), TOP + y.place(p[1]), p]);
    // A whisker from low to high at the point's x, capped CAP each side, under the dots.
    for (const [wx, low, high] of s.spread) {
      const at = LEFT + x.place(wx), top = (TOP + y.place(high)).toFixed(1), bottom = (TOP + y.place(low)).toFixed(1);
      const left = (at - CAP).toFixed(1), right = (at + CAP).toFixed(1), mid = at.toFixed(1);
      const whisker = svg("g", { class: "figure-whisker", stroke: color, "stroke-width": 1.5 });
      whisker.append(svg("title", {}, `${s.name}: ${label(wx)}: ${label(low)} – ${label(high)}`),
                     svg("line", { x1: mid, x2: mid, y1: top, y2: bottom }),
                     svg("line", { x1: left, x2: right, y1: top, y2: top }),
                     svg("line", { x1: left, x2: right, y1: bottom, y2: bottom }));
      g.append(whisker);
    }
    if (dots.length > 1) g.append(svg("polyline", { points: dots.map((d) => `${d[0].toFixed(1)},${d[1].toFixed(1)}`).join(" "), fill: "none", stroke: color, "stroke-width": 2 }));
    for (const [cx, cy, p] of dots) {
      const dot = svg("circle", { cx: cx.toFixed(1), cy: cy.toFixed(1), r: 3.5, fill: color });
      dot.append(svg("title", {}, `${s.name}: ${label(p[0])}, ${label(p[1])}`));
      g.append(dot);
    }
  });
  const box = document.createElement("figure");
  box.className = "result-figure";
  const caption = document.createElement("figcaption");
  caption.textContent = String(figure.title || "");
  const legend = document.createElement("ul");
  legend.className = "figure-legend";
  const legendItems = series.map((s, i) => [s.name, COLORS[i % COLORS.length], false]);
  // Like the server's legend: the marks' meaning, named once.
  if (marks.length) legendItems.push([String(marks[0].label || ""), "#d62728", true]);
  legendItems.forEach(([name, color, dashed]) => {
    const item = document.createElement("li");
    const swatch = svg("svg", { width: 12, height: 12, "aria-hidden": "true" });
    swatch.append(dashed
      ? svg("line", { x1: 6, x2: 6, y1: 0, y2: 12, stroke: color, "stroke-dasharray": "3 2" })
      : svg("rect", { width: 12, height: 12, fill: color }));
    item.append(swatch, document.createTextNode(` ${name}`));
    legend.append(item);
  });
  box.append(caption, root, legend);
  if (figure.note) {
    const note = document.createElement("p");
    note.className = "meta";
    note.textContent = String(figure.note);
    box.append(note);
  }
  return box;
}

export function showFigures(container, figures) {
  if (!Array.isArray(figures)) return;
  for (const figure of figures.slice(0, 6)) {
    const drawn = figure && typeof figure === "object" ? drawFigure(figure) : null;
    if (drawn) container.append(drawn);
  }
}
