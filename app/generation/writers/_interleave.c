/* Row-wise interleaving of text columns straight into one UTF-8 bytes object.
 *
 * interleave(pieces, columns, n[, modes, delimiter, optional]) returns, for r in range(n),
 *     pieces[0] + columns[0][r] + pieces[1] + ... + columns[k-1][r] + pieces[k]
 * encoded as UTF-8: the bytes the writers' pure-Python path builds with a slice-assigned list of
 * 2k+1 pieces per record, one str.join and one str.encode (interleave.py holds that path and
 * the tests hold the two to the same bytes). Done here it is one C pass over the columns' str
 * objects and one memcpy per piece: about a sixth of the Python path's time, which was the
 * largest single cost of the NDJSON and CSV writers.
 *
 * `modes` (bytes, one per column) say how a value is written. RAW: a str as it is. EMPTY_NONE:
 * None as nothing (CSV). CSV_QUOTE: also a value holding the (ASCII) delimiter, a double quote,
 * CR or LF as a quoted field with its quotes doubled (RFC 4180), which spares the CSV writer a
 * quoted copy of every such cell. JSON_STR: a str as a JSON string with orjson's escapes (\" \\
 * \b \f \n \r \t, other controls \u00XX, nothing else), None as null. NULL_NONE: a str as it
 * is, None as null (number and boolean text). JSON_STR spares the JSON writers a scan of every
 * string column for characters to escape and a quoted copy of the nullable ones.
 *
 * `optional` (a list, one entry per column: None, or (prefix, present) with `present` n bytes)
 * writes row r's value, preceded by the prefix, only where present[r] is not 0: an optional
 * JSON member with its `,"key":`, without a copy of the column that holds the key per row.
 *
 * join_groups(pieces, columns, n_items, offsets) returns one str per row r: "[" + the items
 * offsets[r]..offsets[r+1]-1, each interleaved with the pieces as above, separated by "," + "]"
 * (the JSON text of arrays of objects, one template per item), instead of a list of every piece,
 * a join and a split per chunk.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef struct {
    const char *data;
    Py_ssize_t size;
} span;

enum { RAW = 0, EMPTY_NONE = 1, CSV_QUOTE = 2, JSON_STR = 3, NULL_NONE = 4, N_MODES = 5 };

/* rows ahead whose str objects are fetched into the cache while the current row is copied */
#define PREFETCH_AHEAD 8

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

/* The UTF-8 bytes of one value under its column's mode; *is_null is set for a None the mode allows */
static int value_of(PyObject *o, char mode, span *s, int *is_null) {
    *is_null = o == Py_None && mode != RAW;
    if (*is_null) {
        s->data = (mode == JSON_STR || mode == NULL_NONE) ? "null" : "";
        s->size = (mode == JSON_STR || mode == NULL_NONE) ? 4 : 0;
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

/* the bytes that JSON text escapes (as orjson does): controls, the quote, the backslash */
static int json_escaped(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

static char *write_json_string(char *w, const span *s) {
    static const char hex[] = "0123456789abcdef";
    *w++ = '"';
    Py_ssize_t plain = 0;
    while (plain < s->size && !json_escaped((unsigned char)s->data[plain]))
        plain++;
    memcpy(w, s->data, (size_t)plain);
    w += plain;
    for (Py_ssize_t i = plain; i < s->size; i++) {
        unsigned char c = (unsigned char)s->data[i];
        if (!json_escaped(c)) {
            *w++ = (char)c;
            continue;
        }
        *w++ = '\\';
        switch (c) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '\b': *w++ = 'b'; break;
        case '\f': *w++ = 'f'; break;
        case '\n': *w++ = 'n'; break;
        case '\r': *w++ = 'r'; break;
        case '\t': *w++ = 't'; break;
        default:
            memcpy(w, "u00", 3);
            w[3] = hex[c >> 4];
            w[4] = hex[c & 0xF];
            w += 5;
        }
    }
    *w++ = '"';
    return w;
}

/* The most bytes a value can take under its mode (the buffer grows to fit it before writing) */
static Py_ssize_t worst_size(const span *s, char mode, int is_null) {
    if (mode == CSV_QUOTE)
        return 2 * s->size + 2;
    if (mode == JSON_STR && !is_null)
        return 6 * s->size + 2;
    return s->size;
}

static char *write_value(char *w, const span *s, char mode, int is_null, char delimiter) {
    if (mode == JSON_STR && !is_null)
        return write_json_string(w, s);
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

/* an optional column: its prefix and presence bytes (NULL data: the column is always written) */
typedef struct {
    span prefix;
    const char *present;
} optional_column;

static PyObject *interleave(PyObject *self, PyObject *args) {
    PyObject *pieces, *columns, *optional = Py_None, *out = NULL;
    Py_ssize_t n;
    const char *modes = NULL, *delim = ",";
    Py_ssize_t n_modes = 0, n_delim = 1;
    if (!PyArg_ParseTuple(args, "O!O!n|z#s#O:interleave", &PyList_Type, &pieces, &PyList_Type, &columns, &n,
                          &modes, &n_modes, &delim, &n_delim, &optional))
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
        if (modes[j] < 0 || modes[j] >= N_MODES) {
            PyErr_SetString(PyExc_ValueError, "interleave() modes are 0 to 4");
            return NULL;
        }
    }
    if (n_delim != 1 || (unsigned char)delim[0] >= 0x80) {
        PyErr_SetString(PyExc_ValueError, "interleave() needs a one-character ASCII delimiter");
        return NULL;
    }
    if (optional != Py_None && (!PyList_Check(optional) || PyList_GET_SIZE(optional) != k)) {
        PyErr_SetString(PyExc_ValueError, "interleave() optional is None or a list with one entry per column");
        return NULL;
    }
    char delimiter = delim[0];
    span *lit = PyMem_Malloc(sizeof(span) * (size_t)(k + 1));
    PyObject ***items = PyMem_Malloc(sizeof(PyObject **) * (size_t)(k ? k : 1));
    optional_column *opt = PyMem_Calloc((size_t)(k ? k : 1), sizeof(optional_column));
    if (lit == NULL || items == NULL || opt == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* the pieces, columns and optional lists are held by the caller's frame, the objects by the
     * lists, and nothing here runs Python code that could change them */
    Py_ssize_t fixed = 0;
    for (Py_ssize_t j = 0; j <= k; j++) {
        if (utf8_of(PyList_GET_ITEM(pieces, j), &lit[j]) < 0)
            goto done;
        fixed += lit[j].size;
    }
    if (n && (fixed + 16 * k + 64) > PY_SSIZE_T_MAX / 4 / n) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *c = PyList_GET_ITEM(columns, j);
        if (!PyList_Check(c) || PyList_GET_SIZE(c) != n) {
            PyErr_Format(PyExc_ValueError, "interleave() column %zd is not a list of %zd values", j, n);
            goto done;
        }
        items[j] = ((PyListObject *)c)->ob_item;
        PyObject *o = optional == Py_None ? Py_None : PyList_GET_ITEM(optional, j);
        if (o == Py_None)
            continue;
        if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 2 || !PyBytes_Check(PyTuple_GET_ITEM(o, 1)) ||
            PyBytes_GET_SIZE(PyTuple_GET_ITEM(o, 1)) != n) {
            PyErr_Format(PyExc_ValueError, "interleave() optional entry %zd is not (prefix, %zd presence bytes)", j, n);
            goto done;
        }
        if (utf8_of(PyTuple_GET_ITEM(o, 0), &opt[j].prefix) < 0)
            goto done;
        opt[j].present = PyBytes_AS_STRING(PyTuple_GET_ITEM(o, 1));
    }
    /* ONE pass over the values, row by row, into a buffer that grows when a guess proves short:
     * a first pass to size the output exactly touched every str object twice, and the objects of
     * a 4,096-record chunk (megabytes of them) no longer sit in the CPU cache the second time */
    Py_ssize_t cap = fixed * n + 16 * k * n + 64;
    out = PyBytes_FromStringAndSize(NULL, cap);
    if (out == NULL)
        goto done;
    char *w = PyBytes_AS_STRING(out);
    for (Py_ssize_t r = 0; r < n; r++) {
        for (Py_ssize_t j = 0; j < k; j++) {
            char mode = modes == NULL ? RAW : modes[j];
#if defined(__GNUC__)
            if (r + PREFETCH_AHEAD < n)
                __builtin_prefetch(items[j][r + PREFETCH_AHEAD]);
#endif
            int absent = opt[j].present != NULL && !opt[j].present[r];
            span s = {"", 0}, prefix = absent || opt[j].present == NULL ? (span){"", 0} : opt[j].prefix;
            int is_null = 0;
            if (!absent && value_of(items[j][r], mode, &s, &is_null) < 0)
                goto fail;
            /* room for the piece, the prefix, the value at its largest and the row's last piece */
            Py_ssize_t used = w - PyBytes_AS_STRING(out);
            Py_ssize_t worst = absent ? 0 : worst_size(&s, mode, is_null);
            if (worst > PY_SSIZE_T_MAX / 8 - used - lit[j].size - prefix.size - lit[k].size) {
                PyErr_NoMemory();
                goto fail;
            }
            Py_ssize_t need = used + lit[j].size + prefix.size + worst + lit[k].size;
            if (need > cap) {
                cap = need > 2 * cap ? need : 2 * cap;
                if (_PyBytes_Resize(&out, cap) < 0)
                    goto done;  /* out is NULL now */
                w = PyBytes_AS_STRING(out) + used;
            }
            memcpy(w, lit[j].data, (size_t)lit[j].size);
            w += lit[j].size;
            if (absent)
                continue;
            memcpy(w, prefix.data, (size_t)prefix.size);
            w += prefix.size;
            w = write_value(w, &s, mode, is_null, delimiter);
        }
        memcpy(w, lit[k].data, (size_t)lit[k].size);
        w += lit[k].size;
    }
    (void)_PyBytes_Resize(&out, w - PyBytes_AS_STRING(out));  /* on failure out is NULL, the error set */
    goto done;
fail:
    Py_CLEAR(out);
done:
    PyMem_Free(lit);
    PyMem_Free(items);
    PyMem_Free(opt);
    return out;
}

static PyObject *join_groups(PyObject *self, PyObject *args) {
    PyObject *pieces, *columns, *offsets, *rows = NULL;
    Py_ssize_t n_items;
    if (!PyArg_ParseTuple(args, "O!O!nO!:join_groups", &PyList_Type, &pieces, &PyList_Type, &columns, &n_items,
                          &PyList_Type, &offsets))
        return NULL;
    Py_ssize_t k = PyList_GET_SIZE(columns), n_rows = PyList_GET_SIZE(offsets) - 1;
    if (PyList_GET_SIZE(pieces) != k + 1 || n_rows < 0 || n_items < 0) {
        PyErr_SetString(PyExc_ValueError, "join_groups() needs one more piece than columns and n+1 offsets");
        return NULL;
    }
    span *lit = PyMem_Malloc(sizeof(span) * (size_t)(k + 1));
    Py_ssize_t *item_size = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n_items ? n_items : 1));
    char *buf = NULL;
    if (lit == NULL || item_size == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int ascii = 1;
    Py_ssize_t fixed = 0, widest = 2;
    for (Py_ssize_t j = 0; j <= k; j++) {
        PyObject *o = PyList_GET_ITEM(pieces, j);
        if (utf8_of(o, &lit[j]) < 0)
            goto done;
        ascii &= PyUnicode_IS_ASCII(o);
        fixed += lit[j].size;
    }
    for (Py_ssize_t i = 0; i < n_items; i++)
        item_size[i] = fixed;
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *c = PyList_GET_ITEM(columns, j);
        if (!PyList_Check(c) || PyList_GET_SIZE(c) != n_items) {
            PyErr_Format(PyExc_ValueError, "join_groups() column %zd is not a list of %zd values", j, n_items);
            goto done;
        }
        for (Py_ssize_t i = 0; i < n_items; i++) {
            PyObject *o = ((PyListObject *)c)->ob_item[i];
            span v;
            if (utf8_of(o, &v) < 0)
                goto done;
            ascii &= PyUnicode_IS_ASCII(o);
            item_size[i] += v.size;
        }
    }
    /* the offsets: ascending, from 0 to n_items; the widest row sizes the one buffer */
    Py_ssize_t prev = 0;
    for (Py_ssize_t r = 0; r <= n_rows; r++) {
        Py_ssize_t at = PyLong_AsSsize_t(PyList_GET_ITEM(offsets, r));
        if (at == -1 && PyErr_Occurred())
            goto done;
        if ((r == 0 && at != 0) || at < prev || at > n_items || (r == n_rows && at != n_items)) {
            PyErr_SetString(PyExc_ValueError, "join_groups() offsets must rise from 0 to the item count");
            goto done;
        }
        if (r) {
            Py_ssize_t width = 2 + (at > prev ? at - prev - 1 : 0);
            for (Py_ssize_t i = prev; i < at; i++)
                width += item_size[i];
            if (width > widest)
                widest = width;
        }
        prev = at;
    }
    buf = PyMem_Malloc((size_t)widest);
    rows = PyList_New(n_rows);
    if (buf == NULL || rows == NULL) {
        Py_CLEAR(rows);
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t start = 0;
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        Py_ssize_t end = PyLong_AsSsize_t(PyList_GET_ITEM(offsets, r + 1));
        char *w = buf;
        *w++ = '[';
        for (Py_ssize_t i = start; i < end; i++) {
            if (i > start)
                *w++ = ',';
            for (Py_ssize_t j = 0; j < k; j++) {
                memcpy(w, lit[j].data, (size_t)lit[j].size);
                w += lit[j].size;
                span v;
                (void)utf8_of(((PyListObject *)PyList_GET_ITEM(columns, j))->ob_item[i], &v);
                memcpy(w, v.data, (size_t)v.size);
                w += v.size;
            }
            memcpy(w, lit[k].data, (size_t)lit[k].size);
            w += lit[k].size;
        }
        *w++ = ']';
        PyObject *row;
        if (ascii) {  /* no decoding: the bytes are the characters */
            row = PyUnicode_New(w - buf, 127);
            if (row != NULL)
                memcpy(PyUnicode_DATA(row), buf, (size_t)(w - buf));
        } else {
            row = PyUnicode_DecodeUTF8(buf, w - buf, "strict");
        }
        if (row == NULL) {
            Py_CLEAR(rows);
            goto done;
        }
        PyList_SET_ITEM(rows, r, row);
        start = end;
    }
done:
    PyMem_Free(lit);
    PyMem_Free(item_size);
    PyMem_Free(buf);
    return rows;
}

static PyMethodDef methods[] = {
    {"interleave", interleave, METH_VARARGS,
     "interleave(pieces, columns, n[, modes, delimiter, optional]) -> bytes: per row, pieces[0] + columns[0][r] + "
     "pieces[1] + ... + pieces[k], UTF-8 encoded; modes: see the module source."},
    {"join_groups", join_groups, METH_VARARGS,
     "join_groups(pieces, columns, n_items, offsets) -> list[str]: per row, '[' + its items, each "
     "interleaved with the pieces, joined by ',' + ']'."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_interleave",
                                    "Row-wise interleaving of text columns into UTF-8 bytes.", -1, methods};

PyMODINIT_FUNC PyInit__interleave(void) { return PyModule_Create(&module); }
