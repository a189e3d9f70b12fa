import { Out } from "../../../http/openapi/documents";
import { createRoute, z } from "@hono/zod-openapi";
import type { DirectoryRow } from "../../../db/schema";
import { requireOperator } from "../../../http/auth";
import { assertDocumentMatches, collection, pageOf, resource, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import {
  collectionDocument,
  requestDocument,
  resourceSchema,
  singleDocument,
  Timestamp,
  updateDocument,
} from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam, listQuery } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { createDirectory, getDirectory, listDirectories, updateDirectory } from "../../../services/directories";
import { creation, serviceContext } from "../handler-helpers";
import { Name, ShortDescription } from "../fields";
import { Slug } from "../organizations/schema";

const tags = ["Directories"];
const ListDirectoriesQuery = listQuery();
const MinRating = z
  .number()
  .int("must be a whole number")
  .min(0)
  .max(5)
  .openapi({ description: "Organizations whose best published policy rates lower are not shown (0..5)" });

const Directory = resourceSchema(
  "Directory",
  "directory",
  z.object({
    name: Out.name,
    slug: Out.slug,
    description: Out.shortDescription.nullable(),
    min_maturity_rating: z.number().int().min(0).max(5),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  z.object({}),
);

const CreateDirectoryInput = requestDocument(
  "directory",
  z.strictObject({
    name: Name,
    slug: Slug,
    description: ShortDescription.nullable().optional(),
    min_maturity_rating: MinRating.optional(),
  }),
  z.strictObject({}).optional(),
).openapi("CreateDirectoryInput");

const UpdateDirectoryInput = updateDocument(
  "directory",
  z
    .strictObject({
      name: Name.optional(),
      slug: Slug.optional(),
      description: ShortDescription.nullable().optional(),
      min_maturity_rating: MinRating.optional(),
    })
    .optional()
    .default({}),
  z.strictObject({}).optional(),
).openapi("UpdateDirectoryInput");

export function serializeDirectory(row: DirectoryRow) {
  return resource(
    "directory",
    row.id,
    {
      name: row.name,
      slug: row.slug,
      description: row.description,
      min_maturity_rating: row.minMaturityRating,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/directories/${row.id}`,
  );
}

export const directoriesRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listDirectories",
      tags,
      summary: "List directories (any key)",
      request: { query: ListDirectoriesQuery },
      responses: { 200: { description: "Directories", content: jsonApiContent(collectionDocument(Directory)) }, ...errorResponses("read") },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listDirectories(serviceContext(c), { page, sort: query.sort });
      return respond(c, collection(c, rows.map(serializeDirectory), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showDirectory",
      tags,
      summary: "Show a directory (any key)",
      request: { params: IdParam },
      responses: { 200: { description: "The directory", content: jsonApiContent(singleDocument(Directory)) }, ...errorResponses("read") },
    }),
    async (c) => respond(c, single(serializeDirectory(await getDirectory(serviceContext(c), c.req.valid("param").id)))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createDirectory",
      tags,
      summary: "Create a directory (operator)",
      middleware: [requireOperator()],
      request: { body: jsonApiBody(CreateDirectoryInput) },
      responses: {
        201: { description: "Created", content: jsonApiContent(singleDocument(Directory)) },
        ...errorResponses("write", { access: "operator" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "directory");
      const answer = creation(c, serializeDirectory);
      const row = await createDirectory(serviceContext(c, answer.respond), data.attributes);
      return answer.created(row);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updateDirectory",
      tags,
      summary: "Update a directory (operator); its public page is evicted",
      middleware: [requireOperator()],
      request: { params: IdParam, body: jsonApiBody(UpdateDirectoryInput) },
      responses: {
        200: { description: "Updated", content: jsonApiContent(singleDocument(Directory)) },
        ...errorResponses("write", { access: "operator" }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "directory", id);
      const row = await updateDirectory(serviceContext(c), id, data.attributes);
      return respond(c, single(serializeDirectory(row)));
    },
  );
