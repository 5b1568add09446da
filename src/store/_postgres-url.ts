// Internal: telling a PostgreSQL store URL from a file path, and showing one without its password.

/** Whether a store path is a PostgreSQL URL (`postgres://` or `postgresql://`). */
export function isPostgresUrl(path: string): boolean {
  return /^postgres(ql)?:\/\//i.test(path);
}

/** The URL with its password replaced by `***`, for messages and `store.path` (a URL may carry one). */
export function redactPostgresUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}

/** Whether the URL carries a password (`postgres://user:password@host/db`). */
export function postgresUrlHasPassword(url: string): boolean {
  return /^postgres(?:ql)?:\/\/[^:/@]*:[^@]*@/i.test(url);
}
