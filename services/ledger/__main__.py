from services.ledger.service import main

main()
