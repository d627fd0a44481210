// The SQL text of src/ and of the migrations, for test/sql-citus.test.ts. A statement of src/ is a
// module-level `const` whose value is a string beginning like a statement (WITH, SELECT, INSERT,
// UPDATE, DELETE): its initializer is read with TypeScript's parser and evaluated here — string
// and template literals, other module-level constants (of the same module or imported), and calls
// of exported functions (taken from the module at run time, e.g. isoSql('c.x')) — so that the text
// checked is the text the broker sends. A constant that looks like SQL but cannot be evaluated
// this way is returned among `unevaluated` (the test fails on it rather than skipping it).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { listMigrations } from '../../src/db/migrate.ts';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const SRC = join(ROOT, 'src');

/** What looks like a whole statement (fragments, e.g. a WHERE clause, are checked where used). */
const STATEMENT = /^\s*(WITH|SELECT|INSERT|UPDATE|DELETE|MERGE)\s+[\w("*]/i;
/** A literal that looks like SQL at all (for the statements this module failed to evaluate). */
const SQL_WORDS = /\b(SELECT|INSERT INTO|UPDATE|DELETE FROM)\b/;

export interface SqlConstant {
  /** "src/services/log/pop.ts:PICK_ANY_SQL" */
  name: string;
  text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

class Unevaluable extends Error {}

interface Module {
  file: string;
  consts: Map<string, ts.Expression>;
  /** local name → [file, exported name] */
  imports: Map<string, [string, string]>;
  values: Map<string, unknown>;
}

export async function sqlConstants(): Promise<{ constants: SqlConstant[]; unevaluated: string[] }> {
  const modules = new Map<string, Module>();
  const load = (file: string): Module => {
    let m = modules.get(file);
    if (m) return m;
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    m = { file, consts: new Map(), imports: new Map(), values: new Map() };
    for (const st of sf.statements) {
      if (ts.isVariableStatement(st) && st.declarationList.flags & ts.NodeFlags.Const) {
        for (const d of st.declarationList.declarations) {
          if (ts.isIdentifier(d.name) && d.initializer) m.consts.set(d.name.text, d.initializer);
        }
      } else if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier) && st.moduleSpecifier.text.startsWith('.')) {
        const from = resolve(dirname(file), st.moduleSpecifier.text);
        const bindings = st.importClause?.namedBindings;
        if (bindings && ts.isNamedImports(bindings)) {
          for (const el of bindings.elements) m.imports.set(el.name.text, [from, (el.propertyName ?? el.name).text]);
        }
      }
    }
    modules.set(file, m);
    return m;
  };
  const runtime = new Map<string, Record<string, unknown>>();
  const exported = async (file: string, name: string): Promise<unknown> => {
    if (!runtime.has(file)) runtime.set(file, await import(pathToFileURL(file).href));
    const v = runtime.get(file)![name];
    if (v === undefined) throw new Unevaluable(`${relative(ROOT, file)} exports no ${name}`);
    return v;
  };

  const resolveName = async (m: Module, name: string): Promise<unknown> => {
    if (m.values.has(name)) return m.values.get(name);
    const init = m.consts.get(name);
    let v: unknown;
    if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) {
      // A function: the module's own, when it exports it; else compiled as it stands.
      v = await exported(m.file, name).catch(() => arrow(init));
    } else if (init) v = await evaluate(m, init);
    else if (m.imports.has(name)) {
      const [from, original] = m.imports.get(name)!;
      const target = load(from);
      v = target.consts.has(original) ? await resolveName(target, original) : await exported(from, original);
    } else v = await exported(m.file, name);
    m.values.set(name, v);
    return v;
  };

  const evaluate = async (m: Module, e: ts.Expression): Promise<unknown> => {
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
    if (ts.isNumericLiteral(e)) return Number(e.text);
    if (ts.isTemplateExpression(e)) {
      let s = e.head.text;
      for (const span of e.templateSpans) s += String(await evaluate(m, span.expression)) + span.literal.text;
      return s;
    }
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) return evaluate(m, e.expression);
    if (ts.isIdentifier(e)) return resolveName(m, e.text);
    if (ts.isArrayLiteralExpression(e)) return Promise.all(e.elements.map((x) => evaluate(m, x)));
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      return String(await evaluate(m, e.left)) + String(await evaluate(m, e.right));
    }
    if (ts.isPropertyAccessExpression(e)) {
      const target = (await evaluate(m, e.expression)) as Record<string, unknown>;
      const v = target[e.name.text];
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    }
    if (ts.isCallExpression(e)) {
      const fn = await evaluate(m, e.expression);
      if (typeof fn !== 'function') throw new Unevaluable(`${e.expression.getText()} is not a function`);
      const args = [];
      for (const a of e.arguments) {
        // An arrow function argument (e.g. .map((c) => …)) is compiled as it stands: it sees only its parameters.
        if (ts.isArrowFunction(a)) args.push(arrow(a));
        else args.push(await evaluate(m, a));
      }
      return (fn as (...a: unknown[]) => unknown)(...args);
    }
    throw new Unevaluable(`cannot evaluate ${ts.SyntaxKind[e.kind]}: ${e.getText().slice(0, 80)}`);
  };

  const arrow = (a: ts.ArrowFunction | ts.FunctionExpression): unknown => {
    const js = ts.transpileModule(`export default ${a.getText()}`, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText;
    return new Function(`${js.replace(/export default /, 'return ')}`)();
  };

  const constants: SqlConstant[] = [];
  const unevaluated: string[] = [];
  for (const file of sourceFiles(SRC).sort()) {
    const m = load(file);
    for (const [name, init] of m.consts) {
      const looksLikeSql = SQL_WORDS.test(init.getText());
      let v: unknown;
      try {
        v = await resolveName(m, name);
      } catch (err) {
        if (looksLikeSql && ts.isTemplateExpression(init)) unevaluated.push(`${relative(ROOT, file)}:${name}: ${(err as Error).message}`);
        continue;
      }
      if (typeof v === 'string' && STATEMENT.test(v)) constants.push({ name: `${relative(ROOT, file)}:${name}`, text: v });
    }
  }
  return { constants, unevaluated };
}

/** Every prisma/migrations/<stamp>_<name>/migration.sql, in the order the broker applies them. */
export async function migrationTexts(): Promise<SqlConstant[]> {
  return (await listMigrations()).map((mig) => ({ name: `prisma/migrations/${mig.name}/migration.sql`, text: mig.sql }));
}
