package enum SQLiteLayer {}
