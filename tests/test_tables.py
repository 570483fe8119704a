"""tables.py: a table's header and labels checked, each bad one named by its file and line; a dev or
test file's examples kept apart from the files before it (through data.load_csv_task, which asks)."""

import zipfile

import numpy as np
import pytest

import data
import tables


def write(path, text):
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name, text, message", [
    ("a.csv", "", "a.csv: the file is empty: it needs a header naming its columns (text,label)"),
    ("a.csv", "\n\n", "a.csv: the file is empty"),
    ("a.csv", "text\tlabel\nhi\t0\n", "its header 'text\\tlabel' is one column split by tabs: name it .tsv"),
    ("a.tsv", "text,label\nhi,0\n", "its header 'text,label' is one column split by commas: name it .csv"),
    ("a.csv", "text;label\nhi;0\n", "split by semicolons: write it with commas"),
    ("a.csv", "label,text,label\n0,hi,0\n", "the header names the column 'label' twice"),
    ("a.csv", "sentence,label\nhi,0\n", "no column 'text' in the header ['sentence', 'label']; set --text-column"),
    # names match as written; a column in other capitals is pointed at
    ("a.csv", "Text,Label\nhi,0\n", "no column 'text' in the header ['Text', 'Label'] (is it 'Text'?); set --text-column"),
])
def test_a_header_that_cannot_be_read_as_asked_is_named(tmp_path, name, text, message):
    with pytest.raises(ValueError) as e:
        tables.read_header(write(tmp_path / name, text), {"text": "--text-column", None: "--text-pair-column",
                                                          "label": "--label-column"})
    assert message in str(e.value)


def test_a_file_not_in_utf_8_is_named_by_what_it_is(tmp_path):
    """A spreadsheet's 'Unicode text' is UTF-16, and its workbook a zip archive: each once named a
    Latin-1 file by its first bytes."""
    (tmp_path / "a.tsv").write_text("text\tlabel\nhi\t0\n", encoding="utf-16")
    with pytest.raises(ValueError, match=r"a.tsv: the file is UTF-16 \(a spreadsheet's 'Unicode text'\?\): save it as UTF-8"):
        tables.read_table(str(tmp_path / "a.tsv"))
    with zipfile.ZipFile(tmp_path / "book.xlsx", "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("xl/workbook.xml", "<workbook/>" * 50)
    with pytest.raises(ValueError, match=r"book.xlsx: the file is a zip archive \(an .xlsx workbook\?\): save its sheet as CSV"):
        tables.read_table(str(tmp_path / "book.xlsx"))
    (tmp_path / "a.csv").write_bytes("text,label\ncafé,0\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"a.csv, line 2: byte 0xe9 is not UTF-8 \(a Latin-1 or Windows-1252 file\?\)"):
        tables.read_table(str(tmp_path / "a.csv"))


def test_an_empty_file_with_no_column_named_asks_for_a_header(tmp_path):
    # predict.py names no column unless asked: the line reads without an empty list
    with pytest.raises(ValueError, match=r"a.csv: the file is empty: it needs a header naming its columns and a row"):
        tables.check_header(write(tmp_path / "a.csv", ""), [], {None: "--text-column"})


def test_a_good_header_is_its_columns(tmp_path):
    assert tables.read_header(write(tmp_path / "a.tsv", "text\tlabel\nhi\t0\n"), {"text": "--text-column"}) == ["text", "label"]
    # the spaces a hand-written header puts after its commas are not part of the names
    assert tables.read_header(write(tmp_path / "a.csv", " text , label\nhi,0\n"), {"label": "--label-column"}) == ["text", "label"]
    # a spreadsheet's empty columns after the last (trailing commas) are unnamed, not one name twice
    assert tables.read_header(write(tmp_path / "b.csv", "text,label,,\nhi,0,,\n"), {"text": "--text-column"}) == ["text", "label", "", ""]


@pytest.mark.parametrize("header, column", [("text,label", "text"), ("id,sentence,label", "sentence")])
def test_without_a_text_column_named_a_header_s_text_or_sentence_column_is_read(header, column):
    assert tables.text_column_of("a.csv", header.split(",")) == column


@pytest.mark.parametrize("header, message", [
    ("tweet,label", "a.csv: no column 'sentence' or 'text' in the header ['tweet', 'label']; set --text-column"),
    ("Sentence,Label", "a.csv: no column 'sentence' or 'text' in the header ['Sentence', 'Label'] (is it 'Sentence'?); "
                       "set --text-column"),
    ("text,sentence,label", "a.csv: the header has a 'sentence' and a 'text' column: name the texts' one, set --text-column"),
    ("sentence1,sentence2,label", "a.csv: no column 'sentence' or 'text' in the header ['sentence1', 'sentence2', 'label'] "
                                  "(a sentence pair? name its second text too: --text-pair-column sentence2); set --text-column"),
])
def test_a_header_with_no_text_column_or_two_is_refused_without_one_named(header, message):
    with pytest.raises(ValueError) as e:
        tables.text_column_of("a.csv", header.split(","))
    assert message in str(e.value)


def labels(*strings):
    return [("f.csv", line, s) for line, s in enumerate(strings, start=2)]


def test_integers_0_to_c_minus_1_are_classes_other_integers_names_and_other_numbers_scores():
    assert tables.class_names(labels("0", "1", "1")) is None
    assert tables.class_names(labels("pos", "neg", "3 stars")) == ["3 stars", "neg", "pos"]
    # integers other than 0..C-1 are what the file calls its classes, in numeric order
    assert tables.class_names(labels("5", "1", "10", "2")) == ["1", "2", "5", "10"]
    assert tables.class_names(labels("1", "-1")) == ["-1", "1"]
    assert tables.class_names(labels("1", "01", "0")) == ["0", "01", "1"]  # 01 is not how 0..C-1 is written
    for strings in (("0.25", "0.5"), ("1", "2.0")):
        with pytest.raises(ValueError, match=r"line \d: label '[\d.]+' is a number, not a class: pass --regression"):
            tables.class_names(labels(*strings))
    # classes written as floats (pandas' column that once held a missing label): the line says so
    with pytest.raises(ValueError, match=r"line 2: label '1.0' .* if they are classes, write them as integers \(1, not 1.0\)"):
        tables.class_names(labels("1.0", "0.0", "2.0"))
    with pytest.raises(ValueError, match=r"if they are classes, write them as integers or names$"):
        tables.class_names(labels("0.25", "1"))


def test_a_missing_label_written_out_and_a_class_in_two_capitals_are_refused_not_trained_as_classes():
    """pandas' NaN made text ('nan', as df[col].astype(str) writes it) and 'Pos' beside 'pos' were
    once classes of their own: three or four classes where the file meant two."""
    with pytest.raises(ValueError, match=r"f.csv, line 4: label 'nan' is a missing value written out: give the example its label"):
        tables.class_names(labels("1.0", "0.0", "nan"))
    with pytest.raises(ValueError, match=r"line 3: label 'NaN' is a missing value"):
        tables.class_names(labels("pos", "NaN", "neg"))
    with pytest.raises(ValueError, match=r"line 5: label 'Pos' is line 2's 'pos' in other capitals: write each class one way"):
        tables.class_names(labels("pos", "neg", "neg", "Pos"))
    assert tables.class_names(labels("pos", "neg", "banana")) == ["banana", "neg", "pos"]  # 'nan' only as a whole label


def test_labels_are_numbered_by_their_class_and_the_first_wrong_one_is_named():
    labels = lambda *strings: tuple(("t.csv", line, s) for line, s in enumerate(strings, start=2))
    assert tables.parse_labels(labels("pos", "neg", "pos"), False, ["neg", "pos"]).tolist() == [1, 0, 1]
    assert tables.parse_labels(labels("2", "0", "1"), False, None).tolist() == [2, 0, 1]
    with pytest.raises(ValueError, match=r"t.csv, line 3: label 'meh' is not one of the train split's classes \(neg, pos\)"):
        tables.parse_labels(labels("pos", "meh", "neg", "bad"), False, ["neg", "pos"])
    with pytest.raises(ValueError, match=r"t.csv, line 4: label 'x' is not an integer"):
        tables.parse_labels(labels("1", "0", "x", "1.5"), False, None)


def test_classes_and_the_labels_beside_them_name_what_is_wrong():
    assert tables.check_classes("t.csv", np.array([0, 1, 1, 2])) == 3
    with pytest.raises(ValueError, match="t.csv: every label is 'anger'"):
        tables.check_classes("t.csv", np.array([0, 0]), ["anger"])
    with pytest.raises(ValueError, match=r"t.csv: integer labels are the classes 0..C-1, and these are \[1, 3\]"):
        tables.check_classes("t.csv", np.array([1, 3]))
    with pytest.raises(ValueError, match=r"d.csv, line 9: label 2 is not a class of the train split \(0..1\)"):
        tables.check_known("d.csv", np.array([0, 2]), 2, lines=[5, 9])
    with pytest.raises(ValueError, match=r"glue/sst2 validation, example 1: label 2"):
        tables.check_known("glue/sst2 validation", np.array([0, 2]), 2)


def test_a_split_read_again_is_the_file_as_it_is_now_in_lists_of_its_own(tmp_path):
    """read_split reads a file once while it is unchanged: a file written again (its size or its time
    of change moved) is read again, and what one caller changes of its lists no other sees."""
    path = write(tmp_path / "a.csv", "text,label\nhi,0\nyo,1\n")
    texts, _, labels_read = tables.read_split(path, True, 2, 0, None, 1)
    texts.append("extra")
    assert tables.read_split(path, True, 2, 0, None, 1) == (["hi", "yo"], None, [(path, 2, "0"), (path, 3, "1")])
    write(tmp_path / "a.csv", "text,label\nhi,0\nyo,1\nsup,1\n")
    assert tables.read_split(path, True, 2, 0, None, 1)[0] == ["hi", "yo", "sup"]
    write(tmp_path / "a.csv", "text,label\nhi,0\n   ,1\n")
    with pytest.raises(ValueError, match="line 3: empty text"):
        tables.read_split(path, True, 2, 0, None, 1)


def test_a_dev_or_test_file_mostly_of_earlier_examples_is_refused_and_a_few_shared_pass(tmp_path):
    """A dev file that is the train file (or more than half of it) would pick on what the model trained
    on; a test file that is the dev file would report the score that picked. Real tasks share a few
    texts (CLINC150's dev 3 of 3,000 with train): those pass."""
    rows = [f"text {i},{i % 2}\n" for i in range(40)]
    train = write(tmp_path / "train.csv", "text,label\n" + "".join(rows[:30]))
    for dev_rows, shared in ((rows[:10], 10), (rows[24:34], 6)):
        dev = write(tmp_path / "dev.csv", "text,label\n" + "".join(dev_rows))
        with pytest.raises(ValueError, match=rf"dev.csv: {shared} of its 10 examples are also in .*train.csv: "
                                             r"a file that picks or reports needs examples of its own \(one labelled file is cross-validated: "
                                             r"a run's --folds K, make advise's TRAIN_FILE alone, advise\(\) given one part\)$"):
            data.load_csv_task(train, dev)
    dev = write(tmp_path / "dev.csv", "text,label\n" + "".join(rows[25:35]))  # 5 of 10 shared: half passes
    assert len(data.load_csv_task(train, dev).dev_labels) == 10
    with pytest.raises(ValueError, match=r"test.csv: 10 of its 10 examples are also in .*dev.csv: [^(]*$"):
        data.load_csv_task(train, dev, test_file=write(tmp_path / "test.csv", "text,label\n" + "".join(rows[25:35])))
    shouted = write(tmp_path / "shouted.csv", "text,label\n" + "".join(f" TEXT  {i},{i % 2}\n" for i in range(10)))
    with pytest.raises(ValueError, match=r"shouted.csv: 10 of its 10 examples are also in .*train.csv"):  # re-cased, re-spaced
        data.load_csv_task(train, shouted)
    with pytest.raises(ValueError, match=r"test.csv: 10 of its 10 examples are also in .*train.csv: [^(]*$"):  # folds already
        data.load_csv_task(train, None, test_file=write(tmp_path / "test.csv", "text,label\n" + "".join(rows[:10])))
    pairs = write(tmp_path / "pairs.csv", "text,other,label\n" + "".join(f"text {i},other {i},{i % 2}\n" for i in range(10)))
    flipped = write(tmp_path / "flipped.csv", "text,other,label\n" + "".join(f"text {i},else {i},{i % 2}\n" for i in range(10)))
    assert data.load_csv_task(pairs, flipped, pair_column="other").num_labels == 2  # a pair is both its texts
