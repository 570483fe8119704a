"""study/search/given.py: what advise() is given from Python (paths, texts and labels, DataFrames)
read as one labelled file or (train, dev), written as the CSVs a search reads (a search given
DataFrames and a test file of texts and labels: tests/study/search/test_advise.py)."""

import numpy as np
import pytest

import data
from study.search.given import as_csv, one_part, parts_of

pd = pytest.importorskip("pandas", reason="pandas comes with datasets; without it a notebook has no DataFrame to give")


def test_the_notebook_call_reads_one_file_or_two():
    assert one_part("labelled.csv") and one_part((["a text", "another"], [0, 1]))
    assert not one_part(("train.csv", "dev.csv")) and not one_part(((["a"], [0]), (["b"], [1])))
    assert one_part((np.array(["a text", "another"]), np.array([0, 1])))  # a notebook's columns as arrays
    assert not one_part(((np.array(["a"]), np.array([0])), (np.array(["b"]), np.array([1]))))
    two_rows = pd.DataFrame({"text": ["a", "b"], "label": [0, 1]})  # once read as (its column names)
    assert one_part(two_rows) and len(parts_of(two_rows)) == 1 and len(parts_of((two_rows, two_rows))) == 2


def test_a_dataframe_is_written_as_its_text_and_label_columns_would_be(tmp_path):
    texts, labels = [f"film {i}" for i in range(6)], ["pos", "neg"] * 3
    frame = pd.DataFrame({"id": range(6), "text": texts, "label": labels})
    from_lists = as_csv((texts, labels), str(tmp_path / "lists.csv"), ("text", "label"))
    from_frame = as_csv(frame, str(tmp_path / "frame.csv"), ("text", "label"))
    assert open(from_frame, "rb").read() == open(from_lists, "rb").read()
    with pytest.raises(ValueError, match=r"a DataFrame without a column 'label' \(its columns: id, review, stars\): "
                                         r"name yours with text_column= and label_column="):
        as_csv(frame.rename(columns={"text": "review", "label": "stars"}), str(tmp_path / "x.csv"), ("review", "label"))
    assert not (tmp_path / "x.csv").exists()


def test_a_missing_text_or_label_is_written_empty_and_refused_by_its_line(tmp_path):
    """NaN, None and pandas' NA were written as 'nan', 'None' or '<NA>': texts and classes of their own."""
    frame = pd.DataFrame({"text": ["a", "b", np.nan, "d"], "label": ["pos", "neg", "pos", "neg"]})
    written = as_csv(frame, str(tmp_path / "train.csv"), ("text", "label"))
    assert open(written).read() == "text,label\na,pos\nb,neg\n,pos\nd,neg\n"
    with pytest.raises(ValueError, match=r"train.csv, line 4: empty text"):
        data.load_csv_task(written, written)
    for missing in (None, np.float32("nan"), pd.NA):
        as_csv((["a", "b", "c"], ["pos", missing, "neg"]), str(tmp_path / "dev.csv"), ("text", "label"))
        assert open(tmp_path / "dev.csv").read().splitlines()[2] == "b,"
