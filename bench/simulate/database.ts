// One simulated D1 database: a SQLite file laid out by the project's migrations, the Worker's own
// statements compiled once and run many times, a count of the rows written (D1 bills them), and the
// bytes of each table as SQLite's dbstat counts them.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { RowWriter } from "../seed.ts";

const MIGRATIONS = path.join(import.meta.dirname, "..", "..", "migrations");

/** A placeholder a statement is built with, replaced by the real value on each run. */
export const slot = (name: string) => `⟪${name}⟫`;
const SLOT = /⟪(\w+)⟫/g;

export type Values = Record<string, SQLInputValue>;

/** A built statement (Drizzle's `toSQL()`), its placeholders found in its parameters. */
export interface Built {
  sql: string;
  params: unknown[];
}

/**
 * A statement of the Worker's, prepared once: each parameter is either a constant of the statement
 * or names a slot (whole, or inside a JSON string the Worker made from it).
 */
export class Template {
  readonly table: string;
  readonly writes: "insert" | "update" | "delete";
  private readonly statement: StatementSync;
  private readonly params: (SQLInputValue | ((v: Values) => SQLInputValue))[];

  constructor(db: DatabaseSync, built: Built) {
    const head = /^\s*(insert into|update|delete from)\s+"(\w+)"/i.exec(built.sql);
    if (!head) throw new Error(`Not a write: ${built.sql.slice(0, 60)}`);
    this.writes = head[1]!.toLowerCase().startsWith("insert") ? "insert" : head[1]!.toLowerCase() === "update" ? "update" : "delete";
    this.table = head[2]!;
    this.statement = db.prepare(built.sql);
    this.params = built.params.map((p) => {
      if (typeof p !== "string" || !p.includes("⟪")) return p as SQLInputValue;
      const whole = /^⟪(\w+)⟫$/.exec(p);
      if (whole) return (v: Values) => slotValue(v, whole[1]!);
      // Inside JSON the Worker stringified: the value goes in as a JSON string's content.
      return (v: Values) => p.replace(SLOT, (_, name: string) => JSON.stringify(String(slotValue(v, name))).slice(1, -1));
    });
  }

  run(values: Values): number {
    return Number(this.statement.run(...this.params.map((p) => (typeof p === "function" ? p(values) : p))).changes);
  }
}

function slotValue(values: Values, name: string): SQLInputValue {
  const v = values[name];
  if (v === undefined) throw new Error(`No value for slot ${name}`);
  return v;
}

/** Bytes of one table with its indexes (and an FTS table with its shadow tables), from dbstat. */
export interface TableBytes {
  table: string;
  bytes: number;
  rows: number;
}

export interface Measurement {
  /** page_count × page_size: what the file takes, free pages included. */
  fileBytes: number;
  /** The pages dbstat counts (every table and index) plus the free list. */
  accountedBytes: number;
  tables: TableBytes[];
}

/**
 * A SQLite file as one D1 database. Rows written are counted as D1 counts them: every row a statement
 * or its triggers change, plus one per index entry an insert or delete writes (D1's pricing page:
 * "indexes will add an additional written row").
 */
export class SimulatedDatabase {
  readonly db: DatabaseSync;
  readonly rows: RowWriter;
  rowsWritten = 0;
  batches = 0;
  private readonly indexes = new Map<string, number>();
  private readonly totalChanges: StatementSync;
  private batchStart = 0;
  private batchExtra = 0;
  private uncountedStart = 0;

  /** The SQLite file, or null for a database in memory (the same pages, without the file system's cost). */
  readonly file: string | null;

  constructor(file: string | null) {
    this.file = file;
    if (file) {
      rmSync(file, { force: true });
      rmSync(`${file}-journal`, { force: true });
    }
    this.db = new DatabaseSync(file ?? ":memory:");
    // D1 runs with foreign keys on; journal off and no sync: a simulation need not survive a crash.
    this.db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144; PRAGMA foreign_keys = ON;");
    for (const f of readdirSync(MIGRATIONS)
      .filter((f) => f.endsWith(".sql"))
      .sort())
      this.db.exec(readFileSync(path.join(MIGRATIONS, f), "utf8"));
    this.rows = new RowWriter(this.db, "bench/simulate/writes.ts");
    this.totalChanges = this.db.prepare("SELECT total_changes() AS n");
    // A partial index is left out: it holds few of its table's rows (events_body_to_empty_idx: the
    // intake's two events of a report, in and out within their batch), so the figure stays a floor.
    for (const { tbl_name, n } of this.db
      .prepare(
        "SELECT tbl_name, count(*) AS n FROM sqlite_master WHERE type = 'index' AND coalesce(sql, '') NOT LIKE '% WHERE %' GROUP BY tbl_name",
      )
      .all() as { tbl_name: string; n: number }[])
      this.indexes.set(tbl_name, n);
  }

  /** Starts one D1 batch: one transaction, as D1 runs a batch on its single writer. */
  begin(): void {
    this.db.exec("BEGIN");
    this.batchStart = Number((this.totalChanges.get() as { n: number }).n);
    this.batchExtra = 0;
    this.uncountedStart = this.uncounted;
  }

  insert(table: string, row: Record<string, unknown>): void {
    this.rows.insert(table, row);
    this.batchExtra += this.indexes.get(table) ?? 0;
  }

  run(template: Template, values: Values): number {
    const changes = template.run(values);
    if (template.writes !== "update") this.batchExtra += changes * (this.indexes.get(template.table) ?? 0);
    return changes;
  }

  /**
   * Rows the Worker writes that the simulation leaves in their final state instead (a delivery's
   * lease and outcome updates, say): counted as written, not run.
   */
  counted(rows: number): void {
    this.batchExtra += rows;
  }

  /** A DELETE, its rows and index entries counted (cascades and triggers through total_changes). */
  countedDelete(statement: string, param: SQLInputValue, table: string): void {
    const changes = Number(this.db.prepare(statement).run(param).changes);
    this.batchExtra += changes * (this.indexes.get(table) ?? 0);
  }

  /** Changes the simulation makes that the Worker would not (moving a body to R2 after its insert). */
  uncounted = 0;

  end(): void {
    const written =
      Number((this.totalChanges.get() as { n: number }).n) - this.batchStart + this.batchExtra - (this.uncounted - this.uncountedStart);
    this.rowsWritten += written;
    this.batches++;
    // Read before the commit: what an FTS index merges as it commits is SQLite's own bookkeeping, left out alike in every batch.
    this.db.exec("COMMIT");
  }

  /** Each table's bytes with its indexes; the file's size and what dbstat plus the free list account for. */
  measure(): Measurement {
    const owner = new Map(
      (
        this.db.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')").all() as {
          name: string;
          tbl_name: string;
        }[]
      ).map((r) => [r.name, r.tbl_name]),
    );
    const fts = (
      this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'").all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    const ownerOf = (name: string) => {
      const shadow = fts.find((t) => name.startsWith(`${t}_`));
      return shadow ?? (name === "sqlite_schema" ? "sqlite_schema" : (owner.get(name) ?? name));
    };
    const bytes = new Map<string, number>();
    let pages = 0;
    for (const r of this.db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all() as {
      name: string;
      bytes: number;
    }[]) {
      const t = ownerOf(r.name);
      bytes.set(t, (bytes.get(t) ?? 0) + r.bytes);
      pages += r.bytes;
    }
    const pragma = (name: string) => Number((this.db.prepare(`PRAGMA ${name}`).get() as Record<string, number>)[name]);
    const pageSize = pragma("page_size");
    const tables = [...bytes].map(([table, b]) => ({ table, bytes: b, rows: this.countRows(table) })).sort((a, b) => b.bytes - a.bytes);
    return { fileBytes: pragma("page_count") * pageSize, accountedBytes: pages + pragma("freelist_count") * pageSize, tables };
  }

  private countRows(table: string): number {
    try {
      return Number((this.db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n);
    } catch {
      return 0;
    }
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Bodies moved to R2, content-addressed: the row keeps `sha256:<hex>` and the object is stored once
 * per distinct body (a delivery's body is its event's, so they share one object).
 */
export class R2Bodies {
  objects = 0;
  bytes = 0;
  private readonly seen = new Set<string>();

  /** Installs `r2_body()` and the triggers that put each new body in R2 and keep its address. */
  install(sim: SimulatedDatabase, columns: readonly { table: string; column: string }[]): void {
    const db = sim.db;
    db.function("r2_body", { deterministic: false }, (body) => {
      if (typeof body !== "string" || body.startsWith("sha256:")) return body;
      // The Worker would write the hash in the insert itself: the trigger's update is not a D1 write.
      sim.uncounted++;
      const hash = createHash("sha256").update(body).digest("hex");
      if (!this.seen.has(hash)) {
        this.seen.add(hash);
        this.objects++;
        this.bytes += Buffer.byteLength(body);
      }
      return `sha256:${hash}`;
    });
    for (const { table, column } of columns)
      db.exec(`CREATE TRIGGER "${table}_${column}_to_r2" AFTER INSERT ON "${table}" WHEN NEW."${column}" NOT LIKE 'sha256:%'
        BEGIN UPDATE "${table}" SET "${column}" = r2_body(NEW."${column}") WHERE rowid = NEW.rowid; END`);
  }
}
