#include "session/writable_store.h"

#include <iostream>

#include "store/file_system.h"

namespace gputune {

void warn_if_network_database(const std::string& db) {
  const std::string warning = network_database_warning(db);
  if (!warning.empty()) std::cerr << warning << "\n";
}

std::unique_ptr<Store> open_writable_store(const std::string& db) {
  warn_if_network_database(db);
  return open_sqlite_store(db);
}

}  // namespace gputune
