"""``opgen import``: a starter spec from an aclnn API document.

:func:`~codegen.aclnn_doc.run.import_doc` reads a document in one of two formats (the English rendering,
:mod:`~codegen.aclnn_doc.text_doc`; ops-nn's Markdown source, :mod:`~codegen.aclnn_doc.markdown_doc`) into
an :class:`~codegen.aclnn_doc.model.ApiDoc` and writes it as a spec (:mod:`~codegen.aclnn_doc.emit`) whose
unreadable parts are questions the spec loader refuses until they are answered.
"""

from codegen.aclnn_doc.model import ApiDoc, DocError, OutputError, Question
from codegen.aclnn_doc.run import MAX_DOC_BYTES, ImportResult, import_doc, read_doc

__all__ = ["MAX_DOC_BYTES", "ApiDoc", "DocError", "ImportResult", "OutputError", "Question", "import_doc", "read_doc"]
