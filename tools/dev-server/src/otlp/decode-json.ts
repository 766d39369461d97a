import { type AttributeValue, checkIds, OtlpDecodeError, type OtlpSpan } from "./span.ts";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A list field: absent is empty; anything but an array rejects the export. */
function list(owner: Json, key: string, where: string): unknown[] {
  const value = owner[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${where}.${key} must be an array, got ${typeof value}`);
  return value;
}

/** Hex ids as the OTLP/JSON mapping prescribes; base64 ids of the right length are accepted too. */
function id(value: unknown, bytes: number): string {
  if (typeof value !== "string") return "";
  if (value.length === bytes * 2) return value.toLowerCase();
  const decoded = Buffer.from(value, "base64");
  return decoded.length === bytes ? decoded.toString("hex") : value;
}

function nanos(value: unknown): bigint {
  if (typeof value === "string" && /^\d+$/.test(value)) return BigInt(value);
  if (typeof value === "number" && Number.isFinite(value)) return BigInt(Math.round(value));
  if (isObject(value) && typeof value.low === "number" && typeof value.high === "number") {
    return (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
  }
  return 0n;
}

function anyValue(value: unknown, where: string): AttributeValue {
  if (!isObject(value)) return null;
  if ("stringValue" in value) return String(value.stringValue);
  if ("boolValue" in value) return value.boolValue === true || value.boolValue === "true";
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("bytesValue" in value) return new Uint8Array(Buffer.from(String(value.bytesValue), "base64"));
  if ("arrayValue" in value) {
    const array = isObject(value.arrayValue) ? list(value.arrayValue, "values", `${where}.arrayValue`) : [];
    return array.map((v, i) => anyValue(v, `${where}.arrayValue.values[${i}]`));
  }
  if ("kvlistValue" in value) {
    return isObject(value.kvlistValue) ? keyValues(list(value.kvlistValue, "values", `${where}.kvlistValue`)) : {};
  }
  return null;
}

function keyValues(entries: unknown[], where = "attributes"): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  entries.forEach((entry, i) => {
    if (!isObject(entry) || typeof entry.key !== "string") {
      throw new OtlpDecodeError(`${where}[${i}] must be an object with a string key`);
    }
    out[entry.key] = anyValue(entry.value, `${where}[${i}].value`);
  });
  return out;
}

/** Decodes an OTLP/JSON `ExportTraceServiceRequest` into spans. */
export function decodeOtlpJson(body: unknown): OtlpSpan[] {
  if (!isObject(body)) throw new OtlpDecodeError("The OTLP/JSON body must be an object with resourceSpans");
  const spans: OtlpSpan[] = [];
  list(body, "resourceSpans", "body").forEach((rs, r) => {
    const whereRs = `resourceSpans[${r}]`;
    if (!isObject(rs)) throw new OtlpDecodeError(`${whereRs} must be an object`);
    const resource = isObject(rs.resource) ? rs.resource : {};
    const resourceAttributes = keyValues(list(resource, "attributes", `${whereRs}.resource`));
    list(rs, "scopeSpans", whereRs).forEach((ss, s) => {
      const whereSs = `${whereRs}.scopeSpans[${s}]`;
      if (!isObject(ss)) throw new OtlpDecodeError(`${whereSs} must be an object`);
      const scope = isObject(ss.scope) ? ss.scope : {};
      list(ss, "spans", whereSs).forEach((raw, k) => {
        const where = `${whereSs}.spans[${k}]`;
        if (!isObject(raw)) throw new OtlpDecodeError(`${where} must be an object`);
        const status = isObject(raw.status) ? raw.status : {};
        const span: OtlpSpan = {
          traceId: id(raw.traceId, 16),
          spanId: id(raw.spanId, 8),
          parentSpanId: raw.parentSpanId ? id(raw.parentSpanId, 8) : undefined,
          name: typeof raw.name === "string" ? raw.name : "",
          startTimeUnixNano: nanos(raw.startTimeUnixNano),
          endTimeUnixNano: nanos(raw.endTimeUnixNano),
          attributes: keyValues(list(raw, "attributes", where), `${where}.attributes`),
          resourceAttributes,
          scopeName: typeof scope.name === "string" ? scope.name : "",
          scopeVersion: typeof scope.version === "string" ? scope.version : "",
          statusCode: statusCode(status.code),
          statusMessage: typeof status.message === "string" ? status.message : "",
          events: list(raw, "events", where).map((event, e) => {
            const ev = isObject(event) ? event : {};
            return {
              name: typeof ev.name === "string" ? ev.name : "",
              timeUnixNano: nanos(ev.timeUnixNano),
              attributes: keyValues(list(ev, "attributes", `${where}.events[${e}]`)),
            };
          }),
        };
        spans.push(checkIds(span, where));
      });
    });
  });
  return spans;
}

function statusCode(code: unknown): number {
  if (typeof code === "number") return code;
  if (code === "STATUS_CODE_OK") return 1;
  if (code === "STATUS_CODE_ERROR") return 2;
  return 0;
}
