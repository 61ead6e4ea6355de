// Talks to the JSON API: send the code, then poll the submission until it is graded.
export class RequestError extends Error {}

async function readJson(response) {
  try {
    return await response.json();
  } catch {
    return {};
  }
}

export async function submitCode(url, code, lang) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ code, lang }),
    credentials: "same-origin",
  });
  const body = await readJson(response);
  if (response.status !== 202) {
    throw new RequestError(body.message || `HTTP ${response.status}`);
  }
  return body;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Polls quickly at first (most grading takes seconds), then backs off.
export async function waitForResult(id, onStatus, { maxWaitMs = 10 * 60 * 1000 } = {}) {
  const url = `/api/submissions/${encodeURIComponent(id)}`;
  const started = Date.now();
  let delay = 400;
  while (Date.now() - started < maxWaitMs) {
    const response = await fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" });
    const body = await readJson(response);
    if (!response.ok) throw new RequestError(body.message || `HTTP ${response.status}`);
    // Every poll reports: the queue position and elapsed seconds change while the status does not.
    onStatus(body.status, body);
    if (body.status === "done") return body.result;
    await sleep(delay);
    delay = Math.min(delay * 1.5, 2000);
  }
  throw new RequestError("timeout");
}
