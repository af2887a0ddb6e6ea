from services.dealer.service import main

main()
