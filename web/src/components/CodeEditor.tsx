/**
 * CodeMirror 6 as a labelled form field, for SQL and YAML (or plain text). Controlled (`value`,
 * `onChange`); read-only when asked; completion from the caller (`sql.schema` for tables and
 * columns, `completions` for anything else, e.g. parameter names); and, with `original`, the
 * changes from that text to `value` as a unified diff (versions, proposals).
 *
 * Accessible: the editable area is a textbox named by the label (aria-labelledby), described by
 * the description and error; Tab leaves the editor (no keyboard trap), Ctrl-Space opens the
 * completions, and read-only text stays focusable to select and copy. Styles come from Mantine's
 * variables, with syntax colours that keep WCAG AA contrast in light and dark schemes.
 */
import { useEffect, useId, useMemo, useRef, type ReactNode } from 'react';
import { Input, useComputedColorScheme } from '@mantine/core';
import { basicSetup } from 'codemirror';
import { EditorView, placeholder as placeholderExt } from '@codemirror/view';
import { Annotation, Compartment, EditorState, type Extension } from '@codemirror/state';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import type { CompletionSource } from '@codemirror/autocomplete';
import { MySQL, PostgreSQL, StandardSQL, sql as sqlLanguage, type SQLNamespace } from '@codemirror/lang-sql';
import { yaml } from '@codemirror/lang-yaml';
import { unifiedMergeView } from '@codemirror/merge';

export interface CodeEditorProps {
  value: string;
  onChange?: (value: string) => void;
  language: 'sql' | 'yaml' | 'text';
  /** The visible label; also the textbox's accessible name. */
  label: string;
  description?: ReactNode;
  error?: ReactNode;
  required?: boolean;
  readOnly?: boolean;
  placeholder?: string;
  /** SQL only: the dialect, and the tables and columns to complete (schema → table → columns). */
  sql?: { dialect?: 'postgres' | 'mysql' | 'standard'; schema?: SQLNamespace; defaultSchema?: string | undefined };
  /** Further completion sources, offered beside the language's own. */
  completions?: readonly CompletionSource[];
  /** Shows what changed from this text to `value`, as a unified diff. */
  original?: string;
  minHeight?: string;
  maxHeight?: string;
  /** CodeMirror's own texts in the user's language (e.g. {Completions: 'Vorschläge'}). */
  phrases?: Record<string, string>;
}

/** Marks a change made from `value` (not typed), so onChange does not echo it. */
const external = Annotation.define<boolean>();

const DIALECTS = { postgres: PostgreSQL, mysql: MySQL, standard: StandardSQL } as const;

const lightColours = HighlightStyle.define([
  { tag: tags.keyword, color: '#7a1fa2' },
  { tag: [tags.string, tags.special(tags.string)], color: '#a31515' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: '#116644' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: '#5c6370', fontStyle: 'italic' },
  { tag: [tags.typeName, tags.className, tags.standard(tags.name)], color: '#0b5f8a' },
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: '#0550ae' },
  { tag: [tags.special(tags.name), tags.meta, tags.labelName], color: '#6a4b00' },
  { tag: tags.invalid, color: '#b00020' },
]);

const darkColours = HighlightStyle.define([
  { tag: tags.keyword, color: '#d2a8ff' },
  { tag: [tags.string, tags.special(tags.string)], color: '#f2c185' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: '#7ee2b8' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: '#a6adb5', fontStyle: 'italic' },
  { tag: [tags.typeName, tags.className, tags.standard(tags.name)], color: '#8cc8ff' },
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: '#9ecbff' },
  { tag: [tags.special(tags.name), tags.meta, tags.labelName], color: '#e3c779' },
  { tag: tags.invalid, color: '#ff8a8a' },
]);

function frame(dark: boolean, invalid: boolean, minHeight: string, maxHeight: string): Extension {
  return EditorView.theme({
    '&': {
      fontSize: 'var(--mantine-font-size-sm)',
      color: 'var(--mantine-color-text)',
      backgroundColor: 'var(--mantine-color-body)',
      border: `1px solid ${invalid ? 'var(--mantine-color-error)' : 'var(--mantine-color-default-border)'}`,
      borderRadius: 'var(--mantine-radius-sm)',
      minHeight,
      maxHeight,
    },
    '&.cm-focused': { outline: '2px solid var(--mantine-primary-color-filled)', outlineOffset: '1px' },
    '.cm-scroller': { overflow: 'auto', fontFamily: 'var(--mantine-font-family-monospace)', minHeight },
    '.cm-content': { caretColor: 'var(--mantine-color-text)' },
    '.cm-gutters': {
      backgroundColor: 'var(--mantine-color-default-hover)', color: 'var(--mantine-color-dimmed)',
      borderRight: '1px solid var(--mantine-color-default-border)',
    },
    '.cm-activeLineGutter': { color: 'var(--mantine-color-text)' },
    '.cm-placeholder': { color: 'var(--mantine-color-dimmed)' },
    '.cm-tooltip': { border: '1px solid var(--mantine-color-default-border)', backgroundColor: 'var(--mantine-color-body)', color: 'var(--mantine-color-text)' },
    '.cm-completionDetail': { color: 'var(--mantine-color-dimmed)' },
    '.cm-tooltip-autocomplete ul li[aria-selected] .cm-completionDetail': { color: 'inherit' },
  }, { dark });
}

const cspNonce = (): string => (typeof document === 'undefined' ? '' : document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '');

export function CodeEditor(props: CodeEditorProps) {
  const { value, onChange, language, label, description, error, required, readOnly = false, placeholder, sql, completions,
    original, minHeight = '8rem', maxHeight = '32rem', phrases } = props;
  const id = useId();
  const labelId = `${id}-label`;
  const descriptionId = description ? `${id}-description` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const dark = useComputedColorScheme('light') === 'dark';
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const config = useRef(new Compartment());
  const changed = useRef(onChange);
  changed.current = onChange;

  const extensions = useMemo((): Extension => {
    const lang: Extension = language === 'sql'
      ? sqlLanguage({ dialect: DIALECTS[sql?.dialect ?? 'standard'], ...(sql?.schema ? { schema: sql.schema } : {}), ...(sql?.defaultSchema ? { defaultSchema: sql.defaultSchema } : {}) })
      : language === 'yaml' ? yaml() : [];
    const describedBy = [descriptionId, errorId].filter(Boolean).join(' ');
    return [
      lang,
      syntaxHighlighting(dark ? darkColours : lightColours),
      frame(dark, Boolean(error), minHeight, maxHeight),
      EditorState.readOnly.of(readOnly || original !== undefined),
      EditorView.contentAttributes.of({
        'aria-labelledby': labelId,
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
        ...(error ? { 'aria-invalid': 'true' } : {}),
        ...(required ? { 'aria-required': 'true' } : {}),
      }),
      (completions ?? []).map((source) => EditorState.languageData.of(() => [{ autocomplete: source }])),
      original !== undefined ? unifiedMergeView({ original, mergeControls: false, gutter: true, highlightChanges: true }) : [],
      placeholder ? placeholderExt(placeholder) : [],
      phrases ? EditorState.phrases.of(phrases) : [],
    ];
  }, [language, sql?.dialect, sql?.schema, sql?.defaultSchema, dark, error, minHeight, maxHeight, readOnly, original,
    labelId, descriptionId, errorId, required, completions, placeholder, phrases]);

  // The view is made once; what the props configure is swapped in through one compartment.
  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          EditorView.lineWrapping,
          EditorView.cspNonce.of(cspNonce()),
          config.current.of(extensions),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged || update.transactions.some((tr) => tr.annotation(external))) return;
            changed.current?.(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => { editor.destroy(); view.current = null; };
  }, []); // made once; later props arrive through the effects below

  useEffect(() => {
    view.current?.dispatch({ effects: config.current.reconfigure(extensions) });
  }, [extensions]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const current = editor.state.doc.toString();
    if (current !== value) editor.dispatch({ changes: { from: 0, to: current.length, insert: value }, annotations: external.of(true) });
  }, [value]);

  return (
    <Input.Wrapper
      label={label}
      labelElement="div"
      labelProps={{ id: labelId, onClick: () => view.current?.focus() }}
      description={description}
      descriptionProps={descriptionId ? { id: descriptionId } : undefined}
      error={error}
      errorProps={errorId ? { id: errorId } : undefined}
      required={required}
    >
      <div ref={host} data-code-editor={language} />
    </Input.Wrapper>
  );
}
