import {
  type AiUse,
  EVIDENCE_FIELDS,
  type Evidence,
  type EvidenceField,
  type Submission,
  type SubmissionRequirements,
} from "../../db/schema";
import { pagePayloadBytes } from "../../lib/reporter-signature";
import { missingRequirements } from "../../lib/submission-requirements";
import { sha256Hex } from "../../lib/crypto";
import { cleanFilename } from "../../lib/filenames";
import { FIELD_NAMES, type FormField, type FormState, type FormValues } from "../../templates/brief-form";
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

/** What the form brings to the brief's gate: the proof of work, and the signature over the canonical payload. */
export interface FormGate {
  pow: string | null;
  signature: { key: string; signature: string; payload: Uint8Array } | null;
  hasFile: boolean;
}

export type ReadForm =
  | {
      ok: true;
      input: VulnInput;
      raw: Omit<Submission, "received_at">;
      files: FormFile[];
      state: FormState;
      contentHash: string;
      gate: FormGate;
    }
  | { ok: false; state: FormState };

/** A field's text. Browsers send a textarea's line breaks as CRLF: the text typed has LF, as the API's. */
export const formText = (fd: FormData | Record<string, unknown>, name: string) => {
  const v = fd instanceof FormData ? fd.get(name) : fd[name];
  return typeof v === "string" ? v.replace(/\r\n?/g, "\n") : "";
};
const text = formText;

/** A checkbox: sent only when ticked. */
const ticked = (fd: FormData, name: string) => (fd.get(name) === null ? "" : "on");

/** The evidence as the form sent it: each evidence_<field> that is not blank, as typed. */
function evidenceOf(values: FormValues): Evidence {
  const evidence: Evidence = {};
  for (const f of EVIDENCE_FIELDS) if (values[`evidence_${f}`].trim()) evidence[f] = values[`evidence_${f}`];
  return evidence;
}

/**
 * The form as typed, checked by the same schema as the JSON submission (so the same messages) and the
 * brief's requirements by the same rule as the API's, and the files by the same limits as every upload.
 * Nothing is stored here.
 */
export async function readReportForm(fd: FormData, requirements: SubmissionRequirements): Promise<ReadForm> {
  const values: FormValues = {
    title: text(fd, "title"),
    description: text(fd, "description"),
    ...(Object.fromEntries(EVIDENCE_FIELDS.map((f) => [`evidence_${f}`, text(fd, `evidence_${f}`)])) as Record<
      `evidence_${EvidenceField}`,
      string
    >),
    contact_email: text(fd, "contact_email"),
    domains: text(fd, "domains"),
    notify_me: ticked(fd, "notify_me"),
    ai_use_level: text(fd, "ai_use_level"),
    ai_use_tools: text(fd, "ai_use_tools"),
    ai_use_verified: ticked(fd, "ai_use_verified"),
    sign: ticked(fd, "sign"),
  };
  const domains = values.domains
    .split(/[\r\n,]+/)
    .map((d) => d.trim())
    .filter(Boolean);
  const contact = values.contact_email.trim();
  const evidence = evidenceOf(values);
  const aiUse = values.ai_use_level
    ? { level: values.ai_use_level, tools: values.ai_use_tools, verified_by_reporter: values.ai_use_verified === "on" }
    : null;
  const candidate = {
    title: values.title,
    description: values.description,
    contact_email: contact === "" ? null : contact,
    domains,
    ...(contact === "" ? {} : { notify_me: values.notify_me === "on" }),
    ...(Object.keys(evidence).length && { evidence }),
    ...(aiUse && { ai_use: aiUse }),
  };
  const parsed = PublicSubmissionAttributes.safeParse(candidate);
  const errors: Partial<Record<FormField, string[]>> = {};
  const add = (f: FormField, m: string) => (errors[f] ??= []).push(m);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [first, at] = issue.path;
      const f = (first === "evidence" ? `evidence_${String(at)}` : first) as FormField;
      if (f === "domains" && typeof at === "number") add(f, `“${domains[at]}” ${issue.message}.`);
      else add(f, `${FIELD_NAMES[f] ?? "The form"} ${issue.message}.`);
    }
  }
  // A file input left empty still sends one part, with no name and no bytes. Files come in the form's
  // order (the proof of concept's first), as the page's signature lists them.
  const chosen = [...fd.entries()]
    .filter(([name, v]) => (name === "files" || name === "proof_of_concept_file") && typeof v !== "string" && (v.size > 0 || v.name !== ""))
    .map(([name, v]) => ({ name, file: v as File }));
  const hasFile = chosen.some((c) => c.name === "proof_of_concept_file");
  for (const m of missingRequirements(requirements, { evidence, ai_use: aiUse as AiUse | null }, { hasFile })) {
    add(m.member === "ai_use" ? "ai_use" : (`evidence_${m.member.slice("evidence.".length)}` as FormField), m.detail);
  }
  if (chosen.length > MAX_FORM_FILES)
    add("files", `At most ${MAX_FORM_FILES} files can be sent with the form; add more on the report's page afterwards.`);
  const files: FormFile[] = [];
  for (const { file } of chosen.slice(0, MAX_FORM_FILES)) {
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
  // What the page's key signs, rebuilt from what arrived (the same rule as the page script's).
  const payload = pagePayloadBytes({
    title: values.title,
    description: values.description,
    contact_email: candidate.contact_email,
    domains,
    evidence,
    ai_use: aiUse as AiUse | null,
    files: files.map((f) => f.sha256),
  });
  const contentHash = await sha256Hex(payload);
  const key = text(fd, "reporter_key");
  const signature = text(fd, "reporter_signature");
  return {
    ok: true,
    input: parsed.data,
    raw: {
      title: values.title,
      description: values.description,
      contact_email: candidate.contact_email,
      domains,
      ...(Object.keys(evidence).length && { evidence }),
      ...(aiUse && { ai_use: aiUse as AiUse }),
    },
    files,
    state,
    contentHash,
    gate: {
      pow: text(fd, "pow") || text(fd, "altcha") || null,
      // The page signs only when its box is ticked and the browser can; a form without both sends none.
      signature: key && signature ? { key, signature, payload } : null,
      hasFile,
    },
  };
}
