/** The parts of an Immutable.js map that Swagger UI hands to its components and that the plugin reads. */
interface ImmutableMap {
  get(key: string): unknown;
  keySeq(): { toArray(): string[] };
}

type CreateElement = (type: unknown, props?: object | null, ...children: unknown[]) => unknown;

/** What of Swagger UI's system the plugin uses: its React, and its components by name. */
export interface SwaggerSystem {
  React: { createElement: CreateElement };
  getComponent(name: string, container?: boolean): unknown;
}

interface ResponseProps {
  code: string;
  response: ImmutableMap;
}

interface ResponsesProps {
  responses: ImmutableMap;
  tryItOutResponse?: unknown;
  getComponent(name: string): unknown;
  [prop: string]: unknown;
}

/**
 * A Swagger UI plugin that keeps an expanded operation to about two screens (issue 29: one was 4,700 to 7,600 px,
 * the same four headers under each of eight statuses). Every answer shares its headers (X-Request-Id, the
 * X-Rate-Limit-* ones), so they fold into one line naming them; an error answer keeps its status and its codes in
 * view and folds its example and headers, which are the shared error body. Native `<details>`: keyboard and
 * screen readers open them with no script of ours. Like the initializer, it runs in the browser from its source
 * text, so it uses nothing from this module's scope.
 */
export function compactLayoutPlugin(system: SwaggerSystem) {
  const h = system.React.createElement;
  const fold = (kind: string, summary: unknown, ...content: unknown[]) =>
    h('details', { className: `fold fold-${kind}` }, h('summary', null, summary), ...content);
  return {
    wrapComponents: {
      // After "Execute": the answer received, then the documented answers folded (its example would repeat it).
      responses: (Original: unknown) => (props: ResponsesProps) => {
        if (!props.tryItOutResponse) return h(Original, props);
        const LiveResponse = props.getComponent('liveResponse');
        const statuses = props.responses.keySeq().toArray().join(', ');
        return h(
          'div',
          { className: 'responses-wrapper responses-executed' },
          h('div', { className: 'opblock-section-header' }, h('h4', null, 'Responses')),
          h(
            'div',
            { className: 'responses-inner' },
            h(LiveResponse, { ...props, response: props.tryItOutResponse }),
            fold('documented', `Documented answers: ${statuses}`, h(Original, { ...props, tryItOutResponse: null })),
          ),
        );
      },
      headers: (Original: unknown) => (props: { headers?: ImmutableMap }) => {
        const names = props.headers?.keySeq().toArray() ?? [];
        if (names.length === 0) return h(Original, props);
        return fold('headers', `Headers: ${names.join(', ')}`, h(Original, props));
      },
      response: (Original: unknown, ui: SwaggerSystem) => (props: ResponseProps) => {
        if (!(Number(props.code) >= 400)) return h(Original, props);
        const Markdown = ui.getComponent('Markdown', true);
        // The answer as Swagger UI draws it, in a table of its own inside the fold; docs-page.css hides the status
        // and description it repeats.
        const full = h('table', { className: 'fold-response__table' }, h('tbody', null, h(Original, props)));
        // Its codes are the fold's summary: one line each, and a click on them shows the example and headers.
        return h(
          'tr',
          { className: 'response response-folded', 'data-code': props.code },
          h('td', { className: 'response-col_status' }, props.code),
          h(
            'td',
            { className: 'response-col_description' },
            fold(
              'response',
              h(
                'div',
                { className: 'response-col_description__inner' },
                h(Markdown, { source: props.response.get('description') }),
              ),
              full,
            ),
          ),
        );
      },
    },
  };
}

/** docs-page.css: served as a file, since the pages' CSP refuses inline styles. */
export const DOCS_PAGE_CSS = `/* Folds drawn by compactLayoutPlugin (docs-page-layout.ts). */
.swagger-ui details.fold > summary {
  display: flex;
  gap: 6px;
  cursor: pointer;
  list-style: none;
  font-family: sans-serif;
  font-size: 12px;
  color: #3b4151;
  padding: 2px 0;
}
.swagger-ui details.fold > summary::-webkit-details-marker { display: none; }
.swagger-ui details.fold > summary::before { content: "\\25B8"; flex: none; }
.swagger-ui details.fold[open] > summary::before { content: "\\25BE"; }
.swagger-ui details.fold > summary:focus-visible { outline: 2px solid #49cc90; }
.swagger-ui .fold-response > summary .response-col_description__inner { font-size: 14px; }
.swagger-ui .fold-response > summary p,
.swagger-ui .fold-response > summary ul { margin: 0; }
.swagger-ui .fold-response__table { width: 100%; }
.swagger-ui .fold-response__table .response-col_status,
.swagger-ui .fold-response__table .response-col_description__inner { display: none; }
.swagger-ui .fold-response__table td { padding: 0; }
.swagger-ui .responses-table .response-folded td { padding-top: 3px; padding-bottom: 3px; }
/* The documented answers, folded under the one received: their own heading would repeat the one above. */
.swagger-ui .fold-documented .opblock-section-header { display: none; }
.swagger-ui .fold-documented > summary { font-size: 14px; padding: 8px 0; }
/* A request body is a few lines of JSON; the box still grows by dragging its corner. */
.swagger-ui .body-param textarea { min-height: 8em; }
/* No operation declares links: a column saying "No links" on every row is noise. */
.swagger-ui .responses-table .response-col_links { display: none; }
`;
