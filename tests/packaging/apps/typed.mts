// Type-checked as an ES module (the `import` types, `.d.ts`), with the entry points bare.mts does not import.
import { SvcBrowserClient } from "@svc/client/browser";
import { CallbackHandler } from "@svc/langchain";

export const handler: CallbackHandler = new CallbackHandler({ userId: "u-1", tags: ["first-hour"] });
export const browser: SvcBrowserClient = new SvcBrowserClient({ publicKey: "pk" });
