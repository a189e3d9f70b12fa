import type { Submission } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";
import { cleanFilename } from "../../lib/filenames";
import { FIELD_NAMES, type FormField, type FormState } from "../../templates/brief";
import { MAX_FILE_BYTES } from "../../services/attachments";
import type { VulnInput } from "../../services/vulns/types";
import { PublicSubmissionAttributes } from "../v1/vulns/schema";
import { LIMITS, mib } from "../../lib/limits";

export const MAX_FORM_FILES = LIMITS.formFiles;
/** The form's body: its files at their largest, and a body's worth for the text fields and the multipart framing. */
export const MAX_FORM_BYTES = MAX_FORM_FILES * MAX_FILE_BYTES + LIMITS.bodyBytes;

export interface FormFile {
  file: File;
  sha256: string;
}

export type ReadForm =
  | { ok: true; input: VulnInput; raw: Omit<Submission, "received_at">; files: FormFile[]; state: FormState; contentHash: string }
  | { ok: false; state: FormState };

/** A field's text. Browsers send a textarea's line breaks as CRLF: the text typed has LF, as the API's. */
export const formText = (fd: FormData | Record<string, unknown>, name: string) => {
  const v = fd instanceof FormData ? fd.get(name) : fd[name];
  return typeof v === "string" ? v.replace(/\r\n?/g, "\n") : "";
};
const text = formText;

/**
 * The form as typed, checked by the same schema as the JSON submission (so the same messages), and
 * the files by the same limits as every upload. Nothing is stored here.
 */
export async function readReportForm(fd: FormData): Promise<ReadForm> {
  const values = {
    title: text(fd, "title"),
    description: text(fd, "description"),
    contact_email: text(fd, "contact_email"),
    domains: text(fd, "domains"),
    // A checkbox: sent only when ticked (the page ticks it).
    notify_me: fd.get("notify_me") === null ? "" : "on",
  };
  const domains = values.domains
    .split(/[\r\n,]+/)
    .map((d) => d.trim())
    .filter(Boolean);
  const contact = values.contact_email.trim();
  const candidate = {
    title: values.title,
    description: values.description,
    contact_email: contact === "" ? null : contact,
    domains,
    ...(contact === "" ? {} : { notify_me: values.notify_me === "on" }),
  };
  const parsed = PublicSubmissionAttributes.safeParse(candidate);
  const errors: Partial<Record<FormField, string[]>> = {};
  const add = (f: FormField, m: string) => (errors[f] ??= []).push(m);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const f = issue.path[0] as FormField;
      const at = issue.path[1];
      if (f === "domains" && typeof at === "number") add(f, `“${domains[at]}” ${issue.message}.`);
      else add(f, `${FIELD_NAMES[f] ?? "The form"} ${issue.message}.`);
    }
  }
  // A file input left empty still sends one part, with no name and no bytes.
  const chosen = fd.getAll("files").filter((v): v is File => typeof v !== "string" && (v.size > 0 || v.name !== ""));
  if (chosen.length > MAX_FORM_FILES)
    add("files", `At most ${MAX_FORM_FILES} files can be sent with the form; add more on the report's page afterwards.`);
  const files: FormFile[] = [];
  for (const file of chosen.slice(0, MAX_FORM_FILES)) {
    if (file.size > MAX_FILE_BYTES) add("files", `${file.name} is over ${mib(MAX_FILE_BYTES)}.`);
    else if (file.size === 0) add("files", `${file.name} is empty.`);
    else if (cleanFilename(file.name) === null) add("files", "A file has no usable name.");
    else files.push({ file, sha256: await sha256Hex(await file.arrayBuffer()) });
  }
  const state: FormState = { values, errors };
  if (Object.keys(errors).length || !parsed.success) {
    if (chosen.length && !errors.files) add("files", "Choose your files again: browsers do not keep them when a form comes back.");
    return { ok: false, state };
  }
  const contentHash = await sha256Hex(JSON.stringify([values.title, values.description, contact, domains, files.map((f) => f.sha256)]));
  return {
    ok: true,
    input: parsed.data,
    raw: { title: values.title, description: values.description, contact_email: candidate.contact_email, domains },
    files,
    state,
    contentHash,
  };
}
