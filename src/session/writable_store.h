#pragma once
#include <memory>
#include <string>

#include "store/store.h"

namespace gputune {

// Opens a database the session will write, warning on stderr first when it lies on a network
// file system (store/file_system.h).
std::unique_ptr<Store> open_writable_store(const std::string& db);
void warn_if_network_database(const std::string& db);

}  // namespace gputune
