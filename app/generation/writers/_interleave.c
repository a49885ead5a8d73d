/* Row-wise interleaving of text columns straight into one UTF-8 bytes object.
 *
 * interleave(pieces, columns, n[, modes, delimiter]) returns, for r in range(n),
 *     pieces[0] + columns[0][r] + pieces[1] + ... + columns[k-1][r] + pieces[k]
 * encoded as UTF-8: the bytes the writers' pure-Python path builds with a slice-assigned list of
 * 2k+1 pieces per record, one str.join and one str.encode (interleave.py holds that path and
 * the tests hold the two to the same bytes). Done here it is one C pass over the columns' str
 * objects and one memcpy per piece: about a sixth of the Python path's time, which was the
 * largest single cost of the NDJSON and CSV writers.
 *
 * `modes` (bytes, one per column) serves CSV: RAW takes str values only; EMPTY_NONE writes None
 * as nothing; CSV_QUOTE also writes a value holding the (ASCII) delimiter, a double quote, CR or
 * LF as a quoted field with its quotes doubled (RFC 4180), which spares the writer a quoted copy
 * of every such cell (its JSON-encoded arrays hold quotes in every row).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef struct {
    const char *data;
    Py_ssize_t size;
} span;

enum { RAW = 0, EMPTY_NONE = 1, CSV_QUOTE = 2 };

/* The UTF-8 bytes of a str: ASCII strings are their own UTF-8 (no copy, no cache); others use
 * the UTF-8 form CPython caches on the object (a lone surrogate raises, as str.encode does). */
static int utf8_of(PyObject *o, span *s) {
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "interleave() takes str values, not %.100s", Py_TYPE(o)->tp_name);
        return -1;
    }
    if (PyUnicode_IS_COMPACT_ASCII(o)) {
        s->data = (const char *)PyUnicode_DATA(o);
        s->size = PyUnicode_GET_LENGTH(o);
        return 0;
    }
    s->data = PyUnicode_AsUTF8AndSize(o, &s->size);
    return s->data == NULL ? -1 : 0;
}

/* The UTF-8 bytes of one value under its column's mode (None: nothing) */
static int value_of(PyObject *o, char mode, span *s) {
    if (o == Py_None && mode != RAW) {
        s->data = "";
        s->size = 0;
        return 0;
    }
    return utf8_of(o, s);
}

/* Quotes a CSV_QUOTE value needs doubled, or -1 when it is written as it is */
static Py_ssize_t csv_quotes(const span *s, char delimiter) {
    Py_ssize_t quotes = 0;
    int special = 0;
    for (Py_ssize_t i = 0; i < s->size; i++) {
        char c = s->data[i];
        quotes += c == '"';
        special |= c == delimiter || c == '\r' || c == '\n';
    }
    return (quotes || special) ? quotes : -1;
}

static char *write_value(char *w, const span *s, char mode, char delimiter) {
    Py_ssize_t quotes = mode == CSV_QUOTE ? csv_quotes(s, delimiter) : -1;
    if (quotes < 0) {
        memcpy(w, s->data, (size_t)s->size);
        return w + s->size;
    }
    *w++ = '"';
    for (Py_ssize_t i = 0; i < s->size; i++) {
        if ((*w++ = s->data[i]) == '"')
            *w++ = '"';
    }
    *w++ = '"';
    return w;
}

static PyObject *interleave(PyObject *self, PyObject *args) {
    PyObject *pieces, *columns, *out = NULL;
    Py_ssize_t n;
    const char *modes = NULL, *delim = ",";
    Py_ssize_t n_modes = 0, n_delim = 1;
    if (!PyArg_ParseTuple(args, "O!O!n|z#s#:interleave", &PyList_Type, &pieces, &PyList_Type, &columns, &n,
                          &modes, &n_modes, &delim, &n_delim))
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "interleave() needs n >= 0");
        return NULL;
    }
    Py_ssize_t k = PyList_GET_SIZE(columns);
    if (PyList_GET_SIZE(pieces) != k + 1) {
        PyErr_SetString(PyExc_ValueError, "interleave() needs one more piece than columns");
        return NULL;
    }
    if (modes != NULL && n_modes != k) {
        PyErr_SetString(PyExc_ValueError, "interleave() needs one mode per column");
        return NULL;
    }
    for (Py_ssize_t j = 0; modes != NULL && j < k; j++) {
        if (modes[j] != RAW && modes[j] != EMPTY_NONE && modes[j] != CSV_QUOTE) {
            PyErr_SetString(PyExc_ValueError, "interleave() modes are 0, 1 or 2");
            return NULL;
        }
    }
    if (n_delim != 1 || (unsigned char)delim[0] >= 0x80) {
        PyErr_SetString(PyExc_ValueError, "interleave() needs a one-character ASCII delimiter");
        return NULL;
    }
    char delimiter = delim[0];
    span *lit = PyMem_Malloc(sizeof(span) * (size_t)(k + 1));
    if (lit == NULL)
        return PyErr_NoMemory();
    /* the pieces and columns lists are held by the caller's frame; the str objects by the lists
     * (nothing here runs Python code, so nothing can change them between the two passes) */
    Py_ssize_t fixed = 0, total = 0;
    for (Py_ssize_t j = 0; j <= k; j++) {
        if (utf8_of(PyList_GET_ITEM(pieces, j), &lit[j]) < 0)
            goto done;
        fixed += lit[j].size;
    }
    if (n && fixed > PY_SSIZE_T_MAX / n) {
        PyErr_NoMemory();
        goto done;
    }
    total = fixed * n;
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *c = PyList_GET_ITEM(columns, j);
        if (!PyList_Check(c) || PyList_GET_SIZE(c) != n) {
            PyErr_Format(PyExc_ValueError, "interleave() column %zd is not a list of %zd values", j, n);
            goto done;
        }
        PyObject **items = ((PyListObject *)c)->ob_item;
        char mode = modes == NULL ? RAW : modes[j];
        for (Py_ssize_t r = 0; r < n; r++) {
            span s;
            if (value_of(items[r], mode, &s) < 0)
                goto done;
            Py_ssize_t size = s.size;
            if (mode == CSV_QUOTE) {
                Py_ssize_t quotes = csv_quotes(&s, delimiter);
                if (quotes >= 0)
                    size += 2 + quotes;
            }
            if (size > PY_SSIZE_T_MAX - total) {
                PyErr_NoMemory();
                goto done;
            }
            total += size;
        }
    }
    out = PyBytes_FromStringAndSize(NULL, total);
    if (out == NULL)
        goto done;
    char *w = PyBytes_AS_STRING(out);
    for (Py_ssize_t r = 0; r < n; r++) {
        for (Py_ssize_t j = 0; j < k; j++) {
            memcpy(w, lit[j].data, (size_t)lit[j].size);
            w += lit[j].size;
            span s;
            char mode = modes == NULL ? RAW : modes[j];
            (void)value_of(((PyListObject *)PyList_GET_ITEM(columns, j))->ob_item[r], mode, &s); /* cannot fail now */
            w = write_value(w, &s, mode, delimiter);
        }
        memcpy(w, lit[k].data, (size_t)lit[k].size);
        w += lit[k].size;
    }
done:
    PyMem_Free(lit);
    return out;
}

static PyMethodDef methods[] = {
    {"interleave", interleave, METH_VARARGS,
     "interleave(pieces, columns, n[, modes, delimiter]) -> bytes: per row, pieces[0] + columns[0][r] + "
     "pieces[1] + ... + pieces[k], UTF-8 encoded; modes: see the module source."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_interleave",
                                    "Row-wise interleaving of text columns into UTF-8 bytes.", -1, methods};

PyMODINIT_FUNC PyInit__interleave(void) { return PyModule_Create(&module); }
