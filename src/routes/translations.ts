import { z } from 'zod';
import { route, ok, created, noContent, type RouteDef } from '../http/route.js';
import { entityId, listQuery } from '../http/validate.js';
import * as service from '../services/translations.js';
import * as glossary from '../services/translation-glossary.js';
import { TRANSLATION_LANGUAGES } from '../translate/index.js';

const language = z.enum(TRANSLATION_LANGUAGES, { message: `must be one of ${TRANSLATION_LANGUAGES.join(', ')}` });
// A JSONDocument (`{object: "document", data, nodes}`); blocks are kept as given (their text is read
// for the providers' instructions), bounded in number.
const documentSchema = z
  .object({
    object: z.literal('document'),
    data: z.record(z.string(), z.unknown()).default({}),
    nodes: z.array(z.record(z.string(), z.unknown())).max(500, { message: 'must have at most 500 blocks' }),
  })
  .passthrough();
const params = { organizationId: entityId, translationId: entityId };
// GlossaryTranslations: language -> term (1..255 characters, one line).
const glossaryTerms = z
  .partialRecord(
    language,
    z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^\n\r]*$/, { message: 'must be one line' }),
  )
  .refine((t) => Object.keys(t).length >= 1, { message: 'must name at least one language' });
const base = '/v1/orgs/:organizationId/translations';

export const translationRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: base,
    params: { organizationId: entityId },
    query: listQuery,
    handler: async ({ app, principal, params, query }) => ok(await service.listTranslations(app, principal, params.organizationId, query)),
  }),
  route({
    method: 'POST',
    path: base,
    params: { organizationId: entityId },
    body: z
      .object({
        language,
        source: z.object({ space: entityId, language }).strict(),
        instructions: documentSchema.optional(),
      })
      .strict(),
    handler: async ({ app, principal, params, body }) => {
      const r = await service.createTranslation(
        app,
        principal,
        params.organizationId,
        body as Parameters<typeof service.createTranslation>[3],
      );
      return created(r.translation, { location: r.location, 'operation-location': r.operation });
    },
  }),
  route({
    method: 'GET',
    path: `${base}/:translationId`,
    params,
    handler: async ({ app, principal, params }) =>
      ok(await service.getTranslation(app, principal, params.organizationId, params.translationId)),
  }),
  route({
    method: 'PUT',
    path: `${base}/:translationId`,
    params,
    body: z.object({ instructions: documentSchema }).strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(
        await service.updateTranslation(
          app,
          principal,
          params.organizationId,
          params.translationId,
          body.instructions as service.InstructionsDocument,
        ),
      ),
  }),
  route({
    method: 'DELETE',
    path: `${base}/:translationId`,
    params,
    // 205 when a translation was deleted, 204 when there was none (the seed's statuses).
    handler: async ({ app, principal, params }) =>
      (await service.deleteTranslation(app, principal, params.organizationId, params.translationId)) ? { status: 205 } : noContent(),
  }),
  route({
    method: 'POST',
    path: `${base}/:translationId/run`,
    params,
    handler: async ({ app, principal, params }) =>
      noContent({ location: await service.runTranslation(app, principal, params.organizationId, params.translationId) }),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/translations-glossary',
    params: { organizationId: entityId },
    query: { ...listQuery, orderBy: language.optional() },
    handler: async ({ app, principal, params, query }) => ok(await glossary.listGlossary(app, principal, params.organizationId, query)),
  }),
  route({
    method: 'PUT',
    path: '/v1/orgs/:organizationId/translations-glossary',
    params: { organizationId: entityId },
    body: z
      .object({
        operations: z
          .array(
            z.discriminatedUnion('type', [
              z.object({ type: z.literal('insert'), translations: glossaryTerms }).strict(),
              z.object({ type: z.literal('update'), id: entityId, translations: glossaryTerms }).strict(),
              z.object({ type: z.literal('delete'), id: entityId }).strict(),
            ]),
          )
          .max(1000, { message: 'must have at most 1000 operations' }),
      })
      .strict(),
    handler: async ({ app, principal, params, body }) => {
      await glossary.updateGlossary(app, principal, params.organizationId, body.operations);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/translations-glossary/:glossaryEntryId',
    params: { organizationId: entityId, glossaryEntryId: entityId },
    handler: async ({ app, principal, params }) =>
      ok(await glossary.getGlossaryEntry(app, principal, params.organizationId, params.glossaryEntryId)),
  }),
];
