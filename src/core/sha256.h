#pragma once
// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for checksums that must resist tampering:
// a module cache entry is authenticated with a key only its owner reads (compile/module_cache).
// stable_hash (core/hash.h) is for names and change detection, never for authentication.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace gputune {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest sha256(std::string_view data);
Sha256Digest hmac_sha256(std::string_view key, std::string_view data);
// 64 lowercase hex digits.
std::string hex(const Sha256Digest& digest);
// Comparison whose time does not depend on where two digests first differ.
bool same_digest(const Sha256Digest& a, const Sha256Digest& b);

}  // namespace gputune
