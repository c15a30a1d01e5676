#pragma once
// The one wrapper of SQLite: a connection, a prepared statement and a write transaction. The
// store, the release writer and the run-time reader of release databases all speak SQLite
// through it. Failures throw Error(kDb) whose message starts with the database's name.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace gputune::sqlite {

enum class Mode {
  kReadWrite,  // created if missing
  kReadOnly,   // must exist; other connections may write it meanwhile
  kImmutable,  // must exist and never change while open: no locks, no journal
};

class Database {
 public:
  // `name` starts every error message ("" leaves SQLite's words alone, for a caller that says
  // where itself). ":memory:" opens a private in-memory database.
  Database(const std::string& path, Mode mode, std::string name);
  Database(const std::string& path, Mode mode) : Database(path, mode, path) {}
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs SQL text, several statements at once.
  void exec(const std::string& sql) const;
  // The first column of the first row of a PRAGMA ("user_version"), 0 when it returns none.
  int64_t pragma(const std::string& name) const;
  // How long a statement waits for another connection's lock before it fails.
  void set_busy_timeout(int ms) const;
  // Rows the last INSERT, UPDATE or DELETE changed.
  int64_t changes() const;
  // Whether the last failure (the last fail(), as SQLite's code then: a rollback or a
  // statement's end afterwards does not change it) was SQLite finding no database in the file,
  // or another connection's lock (SQLITE_BUSY, SQLITE_LOCKED).
  bool last_error_is_not_a_database() const;
  bool last_error_is_busy() const;

  [[noreturn]] void fail(const std::string& what) const;
  const std::string& name() const { return name_; }
  sqlite3* handle() const { return db_; }

 private:
  std::string name_;
  sqlite3* db_ = nullptr;
  mutable int failure_code_ = 0;  // SQLite's primary result code at the last fail()
};

class Statement {
 public:
  Statement(const Database& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, int64_t value);
  Statement& bind(int i, int value) { return bind(i, static_cast<int64_t>(value)); }
  Statement& bind(int i, double value);  // NaN is stored as NULL, as SQLite would anyway
  Statement& bind(int i, const std::string& value);
  Statement& bind_blob(int i, const std::string& bytes);
  Statement& bind_null(int i);
  template <typename T>
  Statement& bind(int i, const std::optional<T>& value) {
    return value ? bind(i, *value) : bind_null(i);
  }

  // True while there is a row to read.
  bool step();
  // Steps to the end (an INSERT, UPDATE or DDL).
  void run();
  // Ready for new bindings and another run.
  void reset();

  bool is_null(int i) const;
  int64_t int64(int i) const;
  int integer(int i) const;
  double real(int i) const;  // NaN for NULL
  std::optional<double> optional_real(int i) const;
  std::optional<int> optional_integer(int i) const;
  std::string text(int i) const;  // the bytes of a text or blob column; "" for NULL

 private:
  Statement& check(int rc);

  const Database& db_;
  sqlite3_stmt* statement_ = nullptr;
};

// BEGIN IMMEDIATE takes the write lock up front, so a busy database waits (busy timeout) instead
// of failing halfway through on the lock upgrade. Rolled back unless committed. A read
// transaction (BEGIN) only sees one state of the file across several reads.
class Transaction {
 public:
  enum class Kind { kWrite, kRead };
  explicit Transaction(const Database& db, Kind kind = Kind::kWrite);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  const Database& db_;
  bool done_ = false;
};

}  // namespace gputune::sqlite
