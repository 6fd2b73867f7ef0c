#include "numpy_api.hpp"

namespace kc::np {
namespace {

constexpr int NPY_DOUBLE = 12;
constexpr int C_CONTIGUOUS = 0x0001, ALIGNED = 0x0100;

using DescrFromType = PyObject* (*)(int);
using NewFromDescr = PyObject* (*)(PyTypeObject*, PyObject*, int, Py_intptr_t*, Py_intptr_t*, void*, int,
                                   PyObject*);

PyTypeObject* array_type = nullptr;
DescrFromType descr_from_type = nullptr;
NewFromDescr new_from_descr = nullptr;
PyObject* double_descr = nullptr;  // NumPy's float64 dtype, a singleton kept for the process
PyObject* ascontiguousarray = nullptr;

}  // namespace

void load() {
    nb::object core;
    try {
        core = nb::module_::import_("numpy._core._multiarray_umath");  // NumPy 2
    } catch (nb::python_error&) {
        core = nb::module_::import_("numpy.core._multiarray_umath");  // NumPy 1
    }
    nb::object capsule = core.attr("_ARRAY_API");
    void** table = static_cast<void**>(PyCapsule_GetPointer(capsule.ptr(), nullptr));
    if (!table) throw nb::python_error();
    array_type = static_cast<PyTypeObject*>(table[2]);
    descr_from_type = reinterpret_cast<DescrFromType>(table[45]);
    new_from_descr = reinterpret_cast<NewFromDescr>(table[94]);
    double_descr = descr_from_type(NPY_DOUBLE);
    nb::object convert = nb::module_::import_("numpy").attr("ascontiguousarray");
    ascontiguousarray = convert.release().ptr();
}

nb::object empty(int ndim, const Py_intptr_t* shape, double*& data) {
    Py_intptr_t dims[8];
    for (int k = 0; k < ndim; ++k) dims[k] = shape[k];
    Py_INCREF(double_descr);  // NewFromDescr steals a reference
    PyObject* made = new_from_descr(array_type, double_descr, ndim, dims, nullptr, nullptr, 0, nullptr);
    if (!made) throw nb::python_error();
    data = reinterpret_cast<double*>(reinterpret_cast<ArrayObject*>(made)->data);
    return nb::steal(made);
}

const double* exact(nb::handle x, int n) {
    PyObject* o = x.ptr();
    if (Py_TYPE(o) != array_type) return nullptr;
    const ArrayObject* a = reinterpret_cast<const ArrayObject*>(o);
    if (a->descr != double_descr || a->nd != 1 || a->dimensions[0] != n ||
        (a->flags & (C_CONTIGUOUS | ALIGNED)) != (C_CONTIGUOUS | ALIGNED))
        return nullptr;
    return reinterpret_cast<const double*>(a->data);
}

View view(nb::handle x) {
    View v;
    PyObject* obj = x.ptr();
    auto usable = [](PyObject* o) {
        if (Py_TYPE(o) != array_type) return false;
        const ArrayObject* a = reinterpret_cast<const ArrayObject*>(o);
        return a->descr == double_descr && (a->flags & (C_CONTIGUOUS | ALIGNED)) == (C_CONTIGUOUS | ALIGNED);
    };
    if (!usable(obj)) {  // another layout, dtype or a subclass: a C-contiguous float64 copy
        v.keep = nb::steal(PyObject_CallFunctionObjArgs(ascontiguousarray, obj, double_descr, nullptr));
        if (!v.keep.is_valid()) throw nb::python_error();
        obj = v.keep.ptr();
        if (!usable(obj)) {
            v.keep = nb::steal(PyObject_CallMethod(obj, "copy", nullptr));  // an exact ndarray
            if (!v.keep.is_valid()) throw nb::python_error();
            obj = v.keep.ptr();
            if (!usable(obj)) throw nb::type_error("expected a float64 array");
        }
    }
    const ArrayObject* a = reinterpret_cast<const ArrayObject*>(obj);
    v.data = reinterpret_cast<const double*>(a->data);
    v.ndim = a->nd;
    v.shape = a->dimensions;
    return v;
}

View sized(nb::handle x, size_t size, const char* what) {
    View v = view(x);
    if (v.size() != size) throw nb::index_error(what);
    return v;
}

}  // namespace kc::np
