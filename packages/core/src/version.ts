declare const __SVC_SDK_VERSION__: string | undefined;

/** Version of the svc SDK packages (they are released in lockstep). */
export const SDK_VERSION: string = typeof __SVC_SDK_VERSION__ === "string" ? __SVC_SDK_VERSION__ : "0.0.0-dev";
