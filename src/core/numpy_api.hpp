// NumPy arrays in and out without NumPy's headers: the C API table NumPy publishes at run time
// (the `_ARRAY_API` capsule), read once when the module loads, and the array object's stable
// leading fields. A call's overhead is then the allocation of its result (~0.1 µs), not a
// conversion through DLPack or the buffer protocol. The entries used (the array type, 45
// PyArray_DescrFromType, 94 PyArray_NewFromDescr) and the layout below are the same in NumPy 1
// and 2 (pybind11 relies on them too).
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <cstddef>

namespace kc::np {

namespace nb = nanobind;

struct ArrayObject {  // the leading fields of NumPy's PyArrayObject
    PyObject_HEAD
    char* data;
    int nd;
    Py_intptr_t* dimensions;
    Py_intptr_t* strides;
    PyObject* base;
    PyObject* descr;
    int flags;
};

// Read NumPy's C API table (at module load: NumPy is imported by then).
void load();

// A new C-contiguous float64 array of `shape` (ndim ≤ 8) and its data.
nb::object empty(int ndim, const Py_intptr_t* shape, double*& data);

// An input as float64 C-contiguous data: the array itself when it is one (no copy), else a
// converted copy held by `keep`. ndim and shape describe it.
struct View {
    const double* data = nullptr;
    int ndim = 0;
    const Py_intptr_t* shape = nullptr;
    nb::object keep;
    size_t size() const {
        size_t s = 1;
        for (int k = 0; k < ndim; ++k) s *= static_cast<size_t>(shape[k]);
        return s;
    }
};
View view(nb::handle x);

// x as float64 C-contiguous data holding exactly `size` numbers; IndexError(what) otherwise.
View sized(nb::handle x, size_t size, const char* what);

// The data of x if it is exactly a float64 C-contiguous ndarray of shape (n,), else null.
const double* exact(nb::handle x, int n);

}  // namespace kc::np
