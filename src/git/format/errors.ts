/**
 * The repository does not have the shape git sync understands: malformed `.gitbook.yaml` or
 * SUMMARY.md, a path escaping the project directory, a SUMMARY link to a missing file, invalid front
 * matter... The message names the file (and line) and the offending path, for the user to fix.
 */
export class RepoFormatError extends Error {
  override name = 'RepoFormatError';
}
