#pragma once
// The C interface of libgputune_hdf5.so, the HDF5 reader that gputune opens at run time (dlopen,
// spec/t1_hdf5) only when a T1 file fills an argument from a BinaryHDF file, so that neither
// gputune nor the GPU host needs HDF5 otherwise. C types only: the library and its users may
// come from different builds. Bump GPUTUNE_HDF5_ABI when anything here changes.
#include <stddef.h>
#include <stdint.h>

#define GPUTUNE_HDF5_ABI 1

extern "C" {

enum GputuneHdf5Status {
  kGputuneHdf5Ok = 0,
  kGputuneHdf5NoFile = 1,     // the file cannot be opened as HDF5
  kGputuneHdf5NoDataset = 2,  // no dataset of that name; `error` lists those the file holds
  kGputuneHdf5BadType = 3,    // not an integer or floating-point dataset
  kGputuneHdf5Failed = 4      // anything else the library reported
};

enum GputuneHdf5Class { kGputuneHdf5Integer = 0, kGputuneHdf5Float = 1 };

struct GputuneHdf5Dataset {
  int type_class;       // GputuneHdf5Class
  int is_signed;        // integers: 1 signed, 0 unsigned
  size_t element_size;  // bytes per element
  uint64_t count;       // elements (the product of the dataspace's dimensions)
  unsigned char* data;  // count * element_size bytes in the machine's byte order (malloc)
};

typedef int (*GputuneHdf5AbiFn)(void);
// Reads `dataset` of `file` whole into `out`, or returns a status and writes a NUL-terminated
// message of at most error_size bytes into `error`. With dataset_optional, a file without
// `dataset` that holds exactly one dataset gives that one.
typedef int (*GputuneHdf5ReadFn)(const char* file, const char* dataset, int dataset_optional,
                                 GputuneHdf5Dataset* out, char* error, size_t error_size);
typedef void (*GputuneHdf5FreeFn)(GputuneHdf5Dataset* dataset);

int gputune_hdf5_abi(void);
int gputune_hdf5_read(const char* file, const char* dataset, int dataset_optional,
                      GputuneHdf5Dataset* out, char* error, size_t error_size);
void gputune_hdf5_free(GputuneHdf5Dataset* dataset);
}
