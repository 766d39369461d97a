// A web page: the browser client built at module scope, a score sent from the page.
import { SvcBrowserClient } from "@svc/client/browser";

const svc = new SvcBrowserClient({ publicKey: window.SVC_PUBLIC_KEY, baseUrl: window.SVC_BASE_URL });

window.sendScore = (traceId) => svc.score({ name: "user-feedback", value: 1, traceId });
