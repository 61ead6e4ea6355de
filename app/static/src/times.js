// Times in the reader's own zone, with the zone named: the server renders UTC (and says so);
// every <time data-local datetime="..."> is rewritten here in the page's language.
export function localTime(iso, lang = document.documentElement.lang) {
  const when = new Date(iso);
  if (!iso || Number.isNaN(when.getTime())) return "";
  // dateStyle/timeStyle cannot be combined with timeZoneName: the fields are named one by one.
  const fields = { year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit",
    timeZoneName: "short" };
  try {
    return when.toLocaleString(lang || undefined, fields);
  } catch {
    return when.toISOString();
  }
}

export function localizeTimes(root = document) {
  for (const node of root.querySelectorAll("time[data-local][datetime]")) {
    const text = localTime(node.getAttribute("datetime"));
    if (text) {
      node.textContent = text;
      node.title = node.getAttribute("datetime");
    }
  }
}

localizeTimes();
