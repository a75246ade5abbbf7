// The REST client of the console: every call carries the bearer token from session storage.

const TOKEN_KEY = 'memstack.console.token';

/** The token of this tab, or null. */
export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** An error answer of the API: status and the ApiError body {error, field, message}. */
export class ApiError extends Error {
  constructor(status, body, path) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
    this.path = path;
  }

  /** The route itself is unknown to this host (a 404 of the router, not of a record). */
  get missingRoute() {
    return this.status === 404 && /^no route for /.test(this.body.message || '');
  }

  /** One line for people: status, error code, field and message. */
  describe() {
    const parts = [`${this.status}`];
    if (this.body.error) parts.push(this.body.error);
    let text = parts.join(' ');
    if (this.body.field) text += ` (${this.body.field})`;
    return `${text}: ${this.message}`;
  }
}

let onUnauthorized = () => {};
/** Called when a call answers 401: the token is gone or was revoked. */
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

/** A query string of the non-empty values. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    if (value === undefined || value === null || value === '') continue;
    search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * Calls the API. options: params (query), json (a body sent as JSON), body + contentType (raw),
 * as: 'json' (default), 'blob' (with the answer's file name).
 */
export async function call(method, path, options = {}) {
  const headers = {Accept: options.as === 'blob' ? '*/*' : 'application/json'};
  const current = token();
  if (current) headers.Authorization = `Bearer ${current}`;
  let body;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.body !== undefined) {
    headers['Content-Type'] = options.contentType || 'application/octet-stream';
    body = options.body;
  }
  const url = path + query(options.params);
  let response;
  try {
    response = await fetch(url, {method, headers, body, credentials: 'omit', cache: 'no-store'});
  } catch (e) {
    throw new ApiError(0, {error: 'network', message: `the host did not answer (${e.message})`}, path);
  }
  if (!response.ok) {
    let errorBody = null;
    try {
      errorBody = await response.json();
    } catch {
      errorBody = {message: `HTTP ${response.status}`};
    }
    const error = new ApiError(response.status, errorBody, path);
    if (response.status === 401 && options.signInCheck !== true) onUnauthorized(error);
    throw error;
  }
  if (options.as === 'blob') {
    const disposition = response.headers.get('Content-Disposition') || '';
    const match = /filename="?([^";]+)"?/.exec(disposition);
    return {blob: await response.blob(), filename: match ? match[1] : 'download'};
  }
  if (response.status === 204) return null;
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

export const get = (path, params, extra) => call('GET', path, {...extra, params});
export const post = (path, json, params) => call('POST', path, {json, params});
export const patch = (path, json, params) => call('PATCH', path, {json, params});
export const put = (path, json, params) => call('PUT', path, {json, params});
export const del = (path, params) => call('DELETE', path, {params});

/** Path pieces, each encoded. */
export function agentPath(agent, ...rest) {
  return ['/api/v1/agents', encodeURIComponent(agent), ...rest].join('/');
}

/** A workspace path: its segments encoded one by one, its slashes kept. */
export function filePath(agent, name) {
  return agentPath(agent, 'workspace/files', name.split('/').map(encodeURIComponent).join('/'));
}
