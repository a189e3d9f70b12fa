import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import { Conflict } from "../../lib/domain-errors";
import { createMember, deleteMember, listMembers, resendInvitation, revokeMemberSessions, updateMember } from "../../services/members";
import { MEMBER_LABELS, membersPage } from "../../templates/console-settings-members";
import { emptyForm, type FormState } from "../../templates/console-settings";
import { MemberAttributesInput } from "../v1/members/schema";
import { serviceContext } from "../v1/handler-helpers";
import { signedIn } from "./console-door";
import { whoOf } from "./console-shell";
import { page } from "./shared";
import { checkedBy, refusedFields } from "./console-settings-form";
import { formOf } from "./console-shell";

/**
 * /console/settings/members: the members API's list, invite, role change, removal, invitation sent
 * again and sessions ended, as the signed-in member. The services' rules stand as they are: the last
 * owner's 409 comes back as a message on the page.
 */
export const consoleMembersRouter = new Hono<AppEnv>();

const PATH = "/console/settings/members";

async function render(c: Context<AppEnv>, form: FormState, status: 200 | 409 | 422 = 200) {
  const { rows } = await listMembers(serviceContext(c), { page: { number: 1, size: 100 }, sort: "created_at" });
  return page(c, membersPage({ who: await whoOf(c), members: rows, form, done: c.req.query("done") }), status);
}

/** A change of one member; a Conflict (the last owner, a change meanwhile) is said at the top of the page, 409. */
async function change(c: Context<AppEnv>, work: () => Promise<unknown>, done: string): Promise<Response> {
  try {
    await work();
  } catch (err) {
    if (err instanceof Conflict) return render(c, { ...emptyForm({ role: "viewer" }), summary: [err.message] }, 409);
    throw err;
  }
  return c.redirect(`${PATH}?done=${done}`, 303);
}

consoleMembersRouter.get(PATH, signedIn("page"), (c) => render(c, emptyForm({ role: "viewer" })));

consoleMembersRouter.post(PATH, signedIn("page"), async (c) => {
  const fields = await formOf(c);
  const values = { email: fields.field("email").trim(), name: fields.field("name"), role: fields.field("role") };
  // An empty name is no name (the API's null), not a name that is empty.
  const checked = checkedBy(MemberAttributesInput, { ...values, name: values.name.trim() === "" ? null : values.name }, MEMBER_LABELS);
  if (!checked.ok) return render(c, { values, errors: checked.errors }, 422);
  try {
    await createMember(serviceContext(c), checked.value, undefined);
  } catch (err) {
    return render(c, { values, ...refusedFields(err, MEMBER_LABELS) }, 422);
  }
  return c.redirect(`${PATH}?done=invited`, 303);
});

consoleMembersRouter.post(`${PATH}/:id/role`, signedIn("page"), async (c) => {
  const role = (await formOf(c)).field("role");
  const checked = checkedBy(MemberAttributesInput.pick({ role: true }), { role }, { role: MEMBER_LABELS.role });
  if (!checked.ok) return render(c, { ...emptyForm({ role: "viewer" }), summary: Object.values(checked.errors).flat() }, 422);
  return change(c, () => updateMember(serviceContext(c), c.req.param("id"), { role: checked.value.role }), "role");
});

consoleMembersRouter.post(`${PATH}/:id/delete`, signedIn("page"), (c) =>
  change(c, () => deleteMember(serviceContext(c), c.req.param("id")), "removed"),
);

consoleMembersRouter.post(`${PATH}/:id/invitation`, signedIn("page"), (c) =>
  change(c, () => resendInvitation(serviceContext(c), c.req.param("id")), "reinvited"),
);

consoleMembersRouter.post(`${PATH}/:id/sessions`, signedIn("page"), (c) =>
  change(c, () => revokeMemberSessions(serviceContext(c), c.req.param("id")), "signed-out"),
);
