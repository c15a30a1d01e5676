#include "session/writable_store.h"

#include "store/file_system.h"

namespace gputune {

void warn_if_network_database(const std::string& db, std::vector<std::string>* warnings) {
  const std::string warning = network_database_warning(db);
  if (!warning.empty()) warnings->push_back(warning);
}

std::unique_ptr<Store> open_writable_store(const std::string& db,
                                           std::vector<std::string>* warnings) {
  warn_if_network_database(db, warnings);
  return open_sqlite_store(db);
}

}  // namespace gputune
