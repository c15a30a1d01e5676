#include "core/sqlite.h"

#include <sqlite3.h>

#include <cmath>
#include <limits>

#include "gputune/error.h"

namespace gputune::sqlite {
namespace {

// SQLite's URI syntax reserves '%', '?' and '#'; encoding all but the plainest bytes is simplest.
std::string uri_escape(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '/' || c == '-' || c == '_' || c == '.' || c == '~';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

Database::Database(const std::string& path, Mode mode, std::string name) : name_(std::move(name)) {
  std::string file = path;
  int flags = 0;
  switch (mode) {
    case Mode::kReadWrite:
      flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
    case Mode::kReadOnly:
      file = "file:" + uri_escape(path) + "?mode=ro";
      flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
      break;
    case Mode::kImmutable:
      // The caller serialises its use of the connection.
      file = "file:" + uri_escape(path) + "?immutable=1";
      flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
      break;
  }
  const int rc = sqlite3_open_v2(file.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {  // SQLite hands back a handle to close even when the open fails
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    fail("cannot open database: " + why);
  }
  sqlite3_extended_result_codes(db_, 1);
}

Database::~Database() { sqlite3_close_v2(db_); }

void Database::fail(const std::string& what) const {
  failure_code_ = db_ != nullptr ? sqlite3_errcode(db_) & 0xff : SQLITE_ERROR;
  throw Error(ErrorCode::kDb, name_.empty() ? what : name_ + ": " + what);
}

void Database::exec(const std::string& sql) const {
  char* raw = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &raw) != SQLITE_OK) {
    const std::string message = raw != nullptr ? raw : sqlite3_errmsg(db_);
    sqlite3_free(raw);
    fail(message);
  }
}

int64_t Database::pragma(const std::string& name) const {
  Statement s(*this, "PRAGMA " + name);
  return s.step() ? s.int64(0) : 0;
}

void Database::set_busy_timeout(int ms) const { sqlite3_busy_timeout(db_, ms); }

int64_t Database::changes() const { return sqlite3_changes(db_); }

bool Database::last_error_is_not_a_database() const { return failure_code_ == SQLITE_NOTADB; }

bool Database::last_error_is_busy() const {
  return failure_code_ == SQLITE_BUSY || failure_code_ == SQLITE_LOCKED;
}

Statement::Statement(const Database& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK) {
    const std::string message = sqlite3_errmsg(db.handle());
    sqlite3_finalize(statement_);
    statement_ = nullptr;
    db.fail("cannot prepare a statement: " + message);
  }
}

Statement::~Statement() { sqlite3_finalize(statement_); }

Statement& Statement::check(int rc) {
  if (rc != SQLITE_OK) {
    db_.fail(std::string("cannot bind a value: ") + sqlite3_errmsg(db_.handle()));
  }
  return *this;
}

Statement& Statement::bind(int i, int64_t value) {
  return check(sqlite3_bind_int64(statement_, i, value));
}

Statement& Statement::bind(int i, double value) {
  return check(std::isnan(value) ? sqlite3_bind_null(statement_, i)
                                 : sqlite3_bind_double(statement_, i, value));
}

Statement& Statement::bind(int i, const std::string& value) {
  return check(sqlite3_bind_text(statement_, i, value.data(), static_cast<int>(value.size()),
                                 SQLITE_TRANSIENT));
}

Statement& Statement::bind_blob(int i, const std::string& bytes) {
  return check(sqlite3_bind_blob(statement_, i, bytes.data(), static_cast<int>(bytes.size()),
                                 SQLITE_TRANSIENT));
}

Statement& Statement::bind_null(int i) { return check(sqlite3_bind_null(statement_, i)); }

bool Statement::step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail(sqlite3_errmsg(db_.handle()));
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

bool Statement::is_null(int i) const { return sqlite3_column_type(statement_, i) == SQLITE_NULL; }

int64_t Statement::int64(int i) const { return sqlite3_column_int64(statement_, i); }

int Statement::integer(int i) const { return sqlite3_column_int(statement_, i); }

double Statement::real(int i) const {
  return is_null(i) ? std::numeric_limits<double>::quiet_NaN()
                    : sqlite3_column_double(statement_, i);
}

std::optional<double> Statement::optional_real(int i) const {
  return is_null(i) ? std::nullopt : std::optional<double>(real(i));
}

std::optional<int> Statement::optional_integer(int i) const {
  return is_null(i) ? std::nullopt : std::optional<int>(integer(i));
}

std::string Statement::text(int i) const {
  const void* bytes = sqlite3_column_blob(statement_, i);
  if (bytes == nullptr) return {};
  return std::string(static_cast<const char*>(bytes),
                     static_cast<size_t>(sqlite3_column_bytes(statement_, i)));
}

Transaction::Transaction(const Database& db, Kind kind) : db_(db) {
  db_.exec(kind == Kind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN");
}

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace gputune::sqlite
