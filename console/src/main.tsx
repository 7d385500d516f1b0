// The console's shell: the login (`probelet console` opens #/login/{code}; the code is traded for
// a session at once and leaves the address bar), one pod watch and one event watch shared by every
// page, hash routing (#/pods, #/pods/{ns}/{name}, #/events), a light/dark switch, a logout, and
// "/" to jump to the filter.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { hasSession, login, logout, onSignedOut, watchObjects, type WatchStatus } from "./api";
import { EventsPage } from "./events-page";
import type { KubeEvent, Pod } from "./model";
import { PodPage } from "./pod-page";
import { PodsPage } from "./pods-page";
import "./style.css";

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = (): void => setHash(location.hash);
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return hash;
}

function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(id);
  }, [ms]);
  return now;
}

/** LOGIN_PREFIX starts the fragment `probelet console` opens: the code never reaches a server in a URL. */
const LOGIN_PREFIX = "#/login/";

type SessionState = { state: "logging-in" } | { state: "in" } | { state: "out"; message: string };

/** Root logs the tab in with the code in its address, or shows the console, or says how to get in. */
function Root() {
  const [session, setSession] = useState<SessionState>(() => (location.hash.startsWith(LOGIN_PREFIX) ? { state: "logging-in" } : hasSession() ? { state: "in" } : { state: "out", message: "" }));
  useEffect(() => onSignedOut(() => setSession({ state: "out", message: "Your console session has ended." })), []);
  useEffect(() => {
    if (!location.hash.startsWith(LOGIN_PREFIX)) return;
    const code = location.hash.slice(LOGIN_PREFIX.length);
    history.replaceState(null, "", "#/pods");
    login(code).then(
      () => setSession({ state: "in" }),
      (err: unknown) => setSession({ state: "out", message: `The login failed: ${err instanceof Error ? err.message : String(err)}` }),
    );
  }, []);
  if (session.state === "in") return <App />;
  return (
    <main class="signed-out" data-testid="signed-out">
      <h1>probelet console</h1>
      {session.state === "logging-in" ? <p>Logging in…</p> : (
        <>
          {session.message !== "" && <p class="error">{session.message}</p>}
          <p>Open the console with <code>probelet console</code>: it logs this browser in with a code that works once.</p>
        </>
      )}
    </main>
  );
}

function App() {
  const hash = useHash();
  const now = useNow(1000);
  const [pods, setPods] = useState<Pod[]>([]);
  const [events, setEvents] = useState<KubeEvent[]>([]);
  const [status, setStatus] = useState<WatchStatus>("connecting");
  const [theme, setTheme] = useState(localStorage.getItem("probelet-theme") ?? "auto");
  useEffect(() => watchObjects<Pod>("/api/v1/pods", (m) => setPods([...m.values()]), setStatus), []);
  useEffect(() => watchObjects<KubeEvent>("/api/v1/events", (m) => setEvents([...m.values()]), () => undefined, 5000), []);
  useEffect(() => {
    document.documentElement.dataset["theme"] = theme;
    localStorage.setItem("probelet-theme", theme);
  }, [theme]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target as HTMLElement;
      if (e.key === "/" && target.tagName !== "INPUT") {
        const filter = document.querySelector<HTMLInputElement>(".filters input");
        if (filter) {
          e.preventDefault();
          filter.focus();
        }
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
  const route = hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  let page;
  if (route[0] === "pods" && route.length === 3) {
    const [, ns = "", name = ""] = route;
    page = <PodPage namespace={ns} name={name} pod={pods.find((p) => (p.metadata.namespace ?? "default") === ns && p.metadata.name === name)} events={events} now={now} />;
  } else if (route[0] === "events") page = <EventsPage events={events} now={now} />;
  else page = <PodsPage pods={pods} now={now} />;
  return (
    <>
      <header>
        <a class="brand" href="#/pods">probelet</a>
        <nav aria-label="pages">
          <a href="#/pods" aria-current={route[0] !== "events" ? "page" : undefined}>Pods</a>
          <a href="#/events" aria-current={route[0] === "events" ? "page" : undefined}>Events</a>
        </nav>
        <span class={`watch watch-${status}`} data-testid="watch-status" role="status">{status === "live" ? "live" : status === "retrying" ? "reconnecting…" : "connecting…"}</span>
        <label class="theme">
          Theme{" "}
          <select value={theme} onChange={(e) => setTheme((e.target as HTMLSelectElement).value)}>
            <option value="auto">auto</option>
            <option value="light">light</option>
            <option value="dark">dark</option>
          </select>
        </label>
        <button type="button" class="logout" onClick={() => void logout()}>Log out</button>
      </header>
      <main>{page}</main>
    </>
  );
}

const root = document.getElementById("app");
if (root !== null) render(<Root />, root);
