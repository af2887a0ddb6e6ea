from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetCheckpointRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetCheckpointResponse(_message.Message):
    __slots__ = ("checkpoint",)
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    checkpoint: str
    def __init__(self, checkpoint: _Optional[str] = ...) -> None: ...

class GetVerifierKeyRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetVerifierKeyResponse(_message.Message):
    __slots__ = ("verifier_key",)
    VERIFIER_KEY_FIELD_NUMBER: _ClassVar[int]
    verifier_key: str
    def __init__(self, verifier_key: _Optional[str] = ...) -> None: ...

class GetGameRecordsRequest(_message.Message):
    __slots__ = ("table_id", "page_size", "page_token")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    page_size: int
    page_token: str
    def __init__(self, table_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class GetGameRecordsResponse(_message.Message):
    __slots__ = ("checkpoint", "entries", "next_page_token")
    class Entry(_message.Message):
        __slots__ = ("leaf_index", "stream_sequence", "record", "inclusion_proof", "frame_index")
        LEAF_INDEX_FIELD_NUMBER: _ClassVar[int]
        STREAM_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
        RECORD_FIELD_NUMBER: _ClassVar[int]
        INCLUSION_PROOF_FIELD_NUMBER: _ClassVar[int]
        FRAME_INDEX_FIELD_NUMBER: _ClassVar[int]
        leaf_index: int
        stream_sequence: int
        record: bytes
        inclusion_proof: _containers.RepeatedScalarFieldContainer[bytes]
        frame_index: int
        def __init__(self, leaf_index: _Optional[int] = ..., stream_sequence: _Optional[int] = ..., record: _Optional[bytes] = ..., inclusion_proof: _Optional[_Iterable[bytes]] = ..., frame_index: _Optional[int] = ...) -> None: ...
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    checkpoint: str
    entries: _containers.RepeatedCompositeFieldContainer[GetGameRecordsResponse.Entry]
    next_page_token: str
    def __init__(self, checkpoint: _Optional[str] = ..., entries: _Optional[_Iterable[_Union[GetGameRecordsResponse.Entry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetConsistencyProofRequest(_message.Message):
    __slots__ = ("first_size", "second_size")
    FIRST_SIZE_FIELD_NUMBER: _ClassVar[int]
    SECOND_SIZE_FIELD_NUMBER: _ClassVar[int]
    first_size: int
    second_size: int
    def __init__(self, first_size: _Optional[int] = ..., second_size: _Optional[int] = ...) -> None: ...

class GetConsistencyProofResponse(_message.Message):
    __slots__ = ("proof",)
    PROOF_FIELD_NUMBER: _ClassVar[int]
    proof: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, proof: _Optional[_Iterable[bytes]] = ...) -> None: ...

class VerifyGameRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class VerifyGameResponse(_message.Message):
    __slots__ = ("ok", "checks", "verdict", "game_kind", "game_title", "seed", "results", "heading", "boards", "checkpoint", "verifier_key", "export")
    class Check(_message.Message):
        __slots__ = ("name", "passed", "skipped", "sentence")
        NAME_FIELD_NUMBER: _ClassVar[int]
        PASSED_FIELD_NUMBER: _ClassVar[int]
        SKIPPED_FIELD_NUMBER: _ClassVar[int]
        SENTENCE_FIELD_NUMBER: _ClassVar[int]
        name: str
        passed: bool
        skipped: bool
        sentence: str
        def __init__(self, name: _Optional[str] = ..., passed: _Optional[bool] = ..., skipped: _Optional[bool] = ..., sentence: _Optional[str] = ...) -> None: ...
    class Board(_message.Message):
        __slots__ = ("number", "title", "lines")
        NUMBER_FIELD_NUMBER: _ClassVar[int]
        TITLE_FIELD_NUMBER: _ClassVar[int]
        LINES_FIELD_NUMBER: _ClassVar[int]
        number: int
        title: str
        lines: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, number: _Optional[int] = ..., title: _Optional[str] = ..., lines: _Optional[_Iterable[str]] = ...) -> None: ...
    OK_FIELD_NUMBER: _ClassVar[int]
    CHECKS_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    GAME_KIND_FIELD_NUMBER: _ClassVar[int]
    GAME_TITLE_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    HEADING_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    VERIFIER_KEY_FIELD_NUMBER: _ClassVar[int]
    EXPORT_FIELD_NUMBER: _ClassVar[int]
    ok: bool
    checks: _containers.RepeatedCompositeFieldContainer[VerifyGameResponse.Check]
    verdict: str
    game_kind: str
    game_title: str
    seed: str
    results: str
    heading: _containers.RepeatedScalarFieldContainer[str]
    boards: _containers.RepeatedCompositeFieldContainer[VerifyGameResponse.Board]
    checkpoint: str
    verifier_key: str
    export: str
    def __init__(self, ok: _Optional[bool] = ..., checks: _Optional[_Iterable[_Union[VerifyGameResponse.Check, _Mapping]]] = ..., verdict: _Optional[str] = ..., game_kind: _Optional[str] = ..., game_title: _Optional[str] = ..., seed: _Optional[str] = ..., results: _Optional[str] = ..., heading: _Optional[_Iterable[str]] = ..., boards: _Optional[_Iterable[_Union[VerifyGameResponse.Board, _Mapping]]] = ..., checkpoint: _Optional[str] = ..., verifier_key: _Optional[str] = ..., export: _Optional[str] = ...) -> None: ...
