/**
 * The stored columns of the tables whose rows named (prepared) statements return. A statement
 * prepared once per connection keeps the result type it was planned with: had it read `t.*`, a
 * migration adding a column would make PostgreSQL refuse it ("cached plan must not change result
 * type") on every connection prepared before, until a restart. Listed, the result stays the same
 * while a new version's migration adds columns under a running old version (docs/operations.md,
 * Upgrades). A column added for good is added here in the same change that reads it
 * (test/integration/db/upgrade.test.ts compares these lists with the migrated tables).
 */
export const TABLE_COLUMNS = {
  organizations: [
    'id',
    'title',
    'created_at',
    'updated_at',
    'email_domains',
    'hostname',
    'type',
    'use_case',
    'community_type',
    'default_role',
    'default_content',
    'logo_url',
    'sso',
    'ai',
    'invite_links',
    'plan',
    'custom_hostname',
  ],
  spaces: [
    'id',
    'organization_id',
    'parent_id',
    'title',
    'emoji',
    'visibility',
    'edit_mode',
    'default_level',
    'language',
    'position',
    'revision_id',
    'share_key',
    'git_sync',
    'created_by',
    'created_at',
    'updated_at',
    'deleted_at',
    'deleted_by',
    'change_request_seq',
  ],
  sites: [
    'id',
    'organization_id',
    'type',
    'title',
    'visibility',
    'published',
    'basename',
    'proxy_origin',
    'default_level',
    'adaptive_content',
    'agents_context',
    'customization',
    'customization_updated_at',
    'adaptive_schema',
    'adaptive_schema_updated_at',
    'auth_key_sealed',
    'auth_fallback_url',
    'auth_logout_url',
    'version',
    'created_by',
    'created_at',
    'updated_at',
    'hostname',
  ],
} as const satisfies Record<string, readonly string[]>;

/** `alias.column, ...` for every listed column of `table`. */
export function columnsOf(table: keyof typeof TABLE_COLUMNS, alias: string): string {
  return TABLE_COLUMNS[table].map((c) => `${alias}.${c}`).join(', ');
}
