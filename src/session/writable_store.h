#pragma once
#include <memory>
#include <string>
#include <vector>

#include "store/store.h"

namespace gputune {

// Opens a database the session will write, saying first in `warnings` when it lies on a network
// file system (store/file_system.h).
std::unique_ptr<Store> open_writable_store(const std::string& db,
                                           std::vector<std::string>* warnings);
// The network file system warning alone, for a database written by other means (a merge).
void warn_if_network_database(const std::string& db, std::vector<std::string>* warnings);

}  // namespace gputune
