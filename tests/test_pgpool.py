"""The test schemas' pool (tests/pgpool.py): a schema put back holds exactly what a freshly
migrated one holds, so that no test sees another's rows."""

from __future__ import annotations

import psycopg
import pytest
from psycopg import sql

from api.services import Services
from api.settings import Settings
from tests.conftest import ADMIN_TOKEN, PG_URL, _migrate, _schema_url
from tests.pgpool import SchemaPool

pytestmark = pytest.mark.postgres


def contents(conn: psycopg.Connection, schema: str) -> dict[str, list[str]]:
    """Every table's rows as text, sorted, and every sequence's position."""
    tables = [
        r[0]
        for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY 1", (schema,))
    ]
    found = {
        table: sorted(
            str(row)
            for row in conn.execute(
                sql.SQL("SELECT t::text FROM {} AS t").format(sql.Identifier(schema, table))
            )
        )
        for table in tables
    }
    sequences = conn.execute(
        "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = %s ORDER BY 1", (schema,)
    )
    found["(sequences)"] = [str(row) for row in sequences]
    return found


def test_a_schema_put_back_holds_what_a_fresh_migrated_one_holds(pg_required: None) -> None:
    from ledger.storage import parse_database_url

    pool = SchemaPool(parse_database_url(PG_URL).conninfo(), _migrate)
    try:
        used = pool.acquire(migrated=True)
        services = Services.start(Settings(database_url=_schema_url(used), admin_token=ADMIN_TOKEN))
        try:  # rows in the events, the read models, their tracking and a sequence
            ids = [str(services.ledger.register_player(name)[0]) for name in ("Ann", "Bob")]
            services.ledger.create_game(creator=ids[0], title="cotton-trade", players=ids, seed=b"\x01" * 32)
            services.refresh()
        finally:
            services.close()
        with psycopg.connect(pool.conninfo, autocommit=True) as conn:
            assert sum(map(len, contents(conn, used).values())) > 0
        pool.release(used)  # the pool's first release migrates its reference: a schema as new
        assert used in pool.free, "the schema went back into the pool"
        (fresh,) = (name for name in pool.free if name != used)
        with psycopg.connect(pool.conninfo, autocommit=True) as conn:
            assert contents(conn, used) == contents(conn, fresh)
    finally:
        pool.close()


def test_a_schema_whose_shape_changed_is_dropped_not_reused(pg_required: None) -> None:
    from ledger.storage import parse_database_url

    pool = SchemaPool(parse_database_url(PG_URL).conninfo(), _migrate)
    try:
        used = pool.acquire(migrated=True)
        _migrate(used)
        with psycopg.connect(pool.conninfo, autocommit=True) as conn:
            table = conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY 1 LIMIT 1", (used,)
            ).fetchone()[0]  # type: ignore[index]
            conn.execute(sql.SQL("ALTER TABLE {} ADD COLUMN extra int").format(sql.Identifier(used, table)))
        pool.release(used)
        assert used not in pool.free
        with psycopg.connect(pool.conninfo, autocommit=True) as conn:
            gone = conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s", (used,)).fetchone()
        assert gone == (0,)
    finally:
        pool.close()
